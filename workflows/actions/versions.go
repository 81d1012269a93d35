package actions

// The workflow.GetVersion change IDs of this package, oldest first: the
// date each was introduced and why. Every GetVersion site uses one by
// name; workflows/versions_test.go fails on an ID not listed here, an ID
// listed twice, and a run that could record more than the budget
// (docs/design.md#change-ids, where retiring an ID is described too).
const (
	// changeActionRecheckBeforeWipe (2026-11-23): a reimage or replace asks the live gate again just before the wipe.
	changeActionRecheckBeforeWipe = "action-recheck-before-wipe"
	// changeActionForce (2026-11-23): a forced action may take its lease on a Degraded or Failed cluster (break-glass).
	changeActionForce = "action-force"
	// changeReplaceDrainsReadyNode (2026-11-27): a replace of a cordoned node that is still Ready drains it first, so the last Ready rackroll worker is never wiped with it.
	changeReplaceDrainsReadyNode = "replace-drains-ready-node"
	// changeReplaceChecksFirmware (2026-11-27): a replace reads the server's firmware before its lease and is refused below the baseline of the runtime it installs, or applies it first (applyFirmware); a forced one skips the check.
	changeReplaceChecksFirmware = "replace-checks-firmware"
	// changeRefusalReleases (2026-11-29): an action refused before its lease (a pre-check: safeguard mode, an
	// Unhealthy BMM, …) or by the ledger or the live gate gives back the lease the starter took for it before it
	// answers, so the retry the refusal names is not refused as busy until the ledger's sweep (issue 48).
	changeRefusalReleases = "action-refusal-releases"
	// changeReplaceRechecksAccounts (2026-11-29): a replace that succeeded asks every active BMC keyset's run to apply
	// it again on the server's BMC, which may be new (kernel.RecheckBMCAccounts).
	changeReplaceRechecksAccounts = "replace-rechecks-accounts"
)
