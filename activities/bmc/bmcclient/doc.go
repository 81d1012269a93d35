// Package bmcclient is what the BMC activities (package bmc) ask of a
// Redfish client: the Client interface, the slice of standard DMTF Redfish
// they use, how one is dialed, the values it reads and writes, and the
// errors it returns. It names no Redfish library, so the activities are
// written against it alone: package gofishclient implements it for real
// BMCs and the lab, and the unit tests' fakes implement it in memory.
package bmcclient
