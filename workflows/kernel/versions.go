package kernel

// The workflow.GetVersion change IDs of this package, oldest first: the
// date each was introduced and why. Every GetVersion site uses one by
// name; workflows/versions_test.go fails on an ID not listed here, an ID
// listed twice, and a run that could record more than the budget
// (docs/design.md#change-ids, where retiring an ID is described too).
const (
	// changeCpLiveGate (2026-11-22): a lease on a control-plane member is decided on a fresh observation of the site (the live gate), not the ledger alone.
	changeCpLiveGate = "cp-live-gate"
	// ChangeReimageInBand (2026-11-22): a reimage is judged in band (a new boot at the target version seen by the node), not by the BMC alone.
	ChangeReimageInBand = "reimage-in-band"
	// changeCpRecheckBeforeDisruption (2026-11-23): the live gate is asked again after the lease, just before the disruption.
	changeCpRecheckBeforeDisruption = "cp-recheck-before-disruption"
	// changeMemberOutBeforeWipe (2026-11-23): a KCP's etcd member is removed before its disk is wiped, and the reimage waits for it to join again.
	changeMemberOutBeforeWipe = "kcp-member-out-before-wipe"
	// changeInstallConvergingVersion (2026-11-23): a reinstall gets the version the cluster converges to, not the server's own old one.
	changeInstallConvergingVersion = "install-converging-version"
	// changeSiteLimits (2026-11-25): the site's time limits replace the constants, and a step that times out proceeds as the rules say.
	changeSiteLimits = "site-time-limits"
	// changeBootEvidence (2026-11-25): a restart reads the node's boot ID before the reset and judges the reboot by a new one.
	changeBootEvidence = "restart-boot-evidence"
	// ChangeTableBounds (2026-11-27): every wait is bounded by the time-limit table or derived from it (bounds.go): the
	// run limits of the upgrade's children and the failover, the eject and the etcd join after a reimage, the calls.
	ChangeTableBounds = "table-bounds"
	// changeReobserve (2026-11-27): a lease refused only because its observation went stale (a worker restart between
	// the two) is observed and asked again, up to staleAsks times, instead of failing the step.
	changeReobserve = "reobserve"
	// ChangeFirmwareOneReset (2026-11-29): host firmware a BMC stages until a host reset is left staged by each
	// ApplyFirmware and installed by one host start for all of a server's staged components (FinishStagedFirmware),
	// then each proven, the BMC's own update still last: one restart per server rather than one per staged component.
	ChangeFirmwareOneReset = "firmware-one-reset"
	// changeDrainOutOfTime (2026-11-29): a drain or VM shutdown whose last attempt ended with its own context, with no
	// room left for a retry, proceeds at its limit like one the server timed out, rather than failing the server.
	changeDrainOutOfTime = "drain-out-of-time"
	// ChangeKeysAfterReinstall (2026-11-29): a server reinstalled outside an upgrade (Replace, reimage, a remediation's
	// or failover's reprovision, a re-placement) has the BMM keysets re-established (KeysAfterReinstall).
	ChangeKeysAfterReinstall = "keys-after-reinstall"
)
