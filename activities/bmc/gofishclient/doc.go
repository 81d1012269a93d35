// Package gofishclient implements bmcclient.Client with gofish, over
// HTTP(S), for real BMCs and the lab's emulated ones. It opens one Redfish
// session per client (basic auth where the BMC has no SessionService),
// logs in again once when the BMC drops the session, tries a connect's
// requests again while the BMC is busy, and puts gofish's errors in
// bmcclient's terms. It decides nothing about retries or evidence: that is
// the activities' (package bmc).
package gofishclient
