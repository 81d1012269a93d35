// Package bmc holds the Temporal activities that drive bare-metal machines
// through their BMCs with standard DMTF Redfish, so they work on real BMCs
// and on the lab's simulated ones alike. They speak to a BMC through
// bmcclient.Client (gofishclient's by default) and decide everything a
// client does not: retries, waits, evidence and what an error means to
// Temporal; `starter site check` probes a BMC with the same client (Probe).
//
// Every activity resolves the BMM's credentials itself (never taking or
// returning a secret), opens one Redfish session for its attempt and logs
// it out on every way out, is idempotent (it reads the machine first and
// only acts when needed), heartbeats while it waits, and returns
// temporal.ApplicationErrors whose type says whether a retry can help (see
// the ErrType constants). Transient BMC errors (5xx, timeouts, dropped
// connections) are retried inside the activity a few times before the
// activity fails retryably and the Temporal retry policy takes over.
package bmc
