// Package reliability holds rackroll's reliability tests (issue 8): the
// worker SIGKILLed at random moments during an upgrade, a remediation and a
// user reimage; the Temporal server restarted mid-upgrade; BMC faults on
// every BMC; and no BMC password in any history, log or CLI output, nor a
// BMC keyset's password or a private key (keysets_test.go).
//
// `go test ./test/reliability/` (and so `make test`) runs a reduced size;
// `make reliability` builds it with -tags reliability_full for the full size and
// prints a table of figures at the end. RACKROLL_RELIABILITY_SEED replays
// the kill moments of an earlier run (every run prints its seed).
package reliability
