package upgrade

// The workflow.GetVersion change IDs of this package, oldest first: the
// date each was introduced and why. Every GetVersion site uses one by
// name; workflows/versions_test.go fails on an ID not listed here, an ID
// listed twice, and a run that could record more than the budget
// (docs/design.md#change-ids, where retiring an ID is described too).
const (
	// changeRackReportsProgress (2026-11-22): a rack child reports its progress to the parent.
	changeRackReportsProgress = "rack-reports-progress"
	// changeUpgradeKcpLiveGate (2026-11-22): a KCP step of the upgrade asks the live gate and pauses on a refusal.
	changeUpgradeKcpLiveGate = "upgrade-kcp-live-gate"
	// changeUpgradeRetireRemovesMember (2026-11-23): the retired KCP's etcd member is removed.
	changeUpgradeRetireRemovesMember = "upgrade-retire-removes-member"
	// changeUpgradeWaitsMemberJoin (2026-11-23): the upgrade waits for the new etcd member to join as a healthy voter before the next KCP step.
	changeUpgradeWaitsMemberJoin = "upgrade-waits-member-join"
	// changeManagementStageNeedsThreshold (2026-11-23): every management stage, not only the last, waits for its threshold.
	changeManagementStageNeedsThreshold = "management-stage-needs-threshold"
	// changeUpgradeRetirePowersOff (2026-11-23): the retired KCP is powered off and recorded Available, a spare failover can provision.
	changeUpgradeRetirePowersOff = "upgrade-retire-powers-off"
	// changeUpgradeLeavesFailedBehind (2026-11-23): failed servers keep the cluster's version and the upgrade mark; the same target again finishes them.
	changeUpgradeLeavesFailedBehind = "upgrade-leaves-failed-behind"
	// changeRackCancelWakes (2026-11-23): a cancel wakes a rack child that waits between batches.
	changeRackCancelWakes = "rack-cancel-wakes"
	// changeUnitIdsApart (2026-11-23): rack child IDs have a "unit:" segment, apart from the servers' IDs.
	changeUnitIdsApart = "unit-ids-apart"
	// changeUpgradeResumeRedoesInterruptedKcp (2026-11-23): an upgrade resumed after an interrupted KCP step does that step again.
	changeUpgradeResumeRedoesInterruptedKcp = "upgrade-resume-redoes-interrupted-kcp"
	// changeUpgradeKcpGateInChild (2026-11-23): the KCP gate is asked in the server child just before the reimage, not in the parent.
	changeUpgradeKcpGateInChild = "upgrade-kcp-gate-in-child"
	// changeImagePreflight (2026-11-26): the image is checked before the first disruption (guard).
	changeImagePreflight = "image-preflight"
	// changeSystemicCanary (2026-11-26): the plan's canary runs first and a systemic failure stops the upgrade (guard).
	changeSystemicCanary = "systemic-canary"
	// changeCapacityGuard (2026-11-26): the capacity guard as the parent ran it (before capacity-in-rack).
	changeCapacityGuard = "capacity-guard"
	// changeRetireInSparesRack (2026-11-26): the retire happens in the spare's rack.
	changeRetireInSparesRack = "retire-in-spares-rack"
	// changeCapacityInRack (2026-11-26): the capacity guard runs in the rack child, before its drain.
	changeCapacityInRack = "capacity-in-rack"
	// changeRackCancelAfterCheck (2026-11-26): a cancel during a rack's capacity check ends the rack after the check.
	changeRackCancelAfterCheck = "rack-cancel-after-check"
	// changeCapacityEachServer (2026-11-26): each server after a rack's first wave is checked for capacity too.
	changeCapacityEachServer = "capacity-each-server"
	// changeVersionSourcePreflight (2026-11-27): the nodes are read through the site's version source before the first disruption.
	changeVersionSourcePreflight = "version-source-preflight"
	// changeCapacityBlindHolds (2026-11-27): under capacityPolicy Pause a capacity check that cannot read the cluster holds the batch too.
	changeCapacityBlindHolds = "capacity-blind-holds"
	// changeCapacityLocal (2026-11-27): with no site queue the capacity check is a local activity of the workflow's worker.
	changeCapacityLocal = "capacity-local"
	// changeUpgradeMovesBuild (2026-11-27): at a compute pause the run moves to a new current rackroll build (continue-as-new with its carry).
	// Version 2 (2026-11-29, movesBetweenRacks): also before a compute rack starts and during the wait between racks;
	// the wait asks it each time, so a new run records it at its first wait.
	changeUpgradeMovesBuild = "upgrade-moves-build"
	// changeKeysAfterUpgrade (2026-11-27): once the upgrade has ended, the BMM keysets are re-established on the nodes.
	changeKeysAfterUpgrade = "keys-after"
	// changeFirmwareRerun (2026-11-29): an upgrade to the version the cluster runs, whose baseline is declared, runs for the firmware alone.
	changeFirmwareRerun = "fw-rerun"
	// changeKeysAfterFailure (2026-11-29): a failed upgrade that touched the site re-establishes the BMM keysets too
	// (the servers it did reinstall lost their users), as a completed or cancelled one does.
	changeKeysAfterFailure = "keys-after-failure"
	// changeLedgerLocal (2026-11-29): the upgrade's own ledger calls, and its short reads of a site without a queue of
	// its own (the preflights, the retire's gate), are local activities (kernel.LocalLedger, kernel.SiteRead): each
	// call on the run's serial path cost two round trips through the server (docs/performance.md).
	changeLedgerLocal = "ledger-local"
)
