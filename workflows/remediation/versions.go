package remediation

// The workflow.GetVersion change IDs of this package, oldest first: the
// date each was introduced and why. Every GetVersion site uses one by
// name; workflows/versions_test.go fails on an ID not listed here, an ID
// listed twice, and a run that could record more than the budget
// (docs/design.md#change-ids, where retiring an ID is described too).
const (
	// changeRemediationRecheckProvisioning (2026-11-21): a remediation rechecks, after its lease, that the node is not still provisioning.
	changeRemediationRecheckProvisioning = "remediation-recheck-provisioning"
	// changeMonitorRecordsHealth (2026-11-23): the monitor writes node health (readyState) to the ledger.
	changeMonitorRecordsHealth = "monitor-records-health"
	// changeFailoverPromoteGate (2026-11-23): the spare's promotion is checked by the live gate; a read-only spare is reprovisioned.
	changeFailoverPromoteGate = "failover-promote-gate"
	// changeFailoverHandsOverMember (2026-11-23): the failover moves the etcd membership where the site exposes etcd.
	changeFailoverHandsOverMember = "failover-hands-over-member"
	// changeFailoverNoSpareRemovesNode (2026-11-23): a failed KCP with no usable spare has its node removed.
	changeFailoverNoSpareRemovesNode = "failover-no-spare-removes-node"
	// changeStormRespectsResume (2026-11-23): the storm guard does not pause again a cluster an operator resumed for the same storm.
	changeStormRespectsResume = "storm-respects-resume"
	// changeFailoverManagementLadder (2026-11-23): a failed spare goes to the management ladder, with marks kept as state.
	changeFailoverManagementLadder = "failover-management-ladder"
	// changeFailoverMarksFailedSpare (2026-11-23): a spare that cannot be provisioned is marked so it is not picked again.
	changeFailoverMarksFailedSpare = "failover-marks-failed-spare"
	// changeMonitorEndsProvisioning (2026-11-23): the monitor ends a provisioning that has run past its limit.
	changeMonitorEndsProvisioning = "monitor-ends-provisioning"
	// changeDampedLadder (2026-11-23): the ladder's position is kept in the ledger (damped ladder) and a mark ends it.
	changeDampedLadder = "remediation-damped-ladder"
	// changeRemediationProvisioningSince (2026-11-23): a remediation reads the ledger's provisioning start, not the Provisioning status.
	changeRemediationProvisioningSince = "remediation-provisioning-since"
	// changeFailoverResumesInterrupted (2026-11-23): a failover started again finishes the interrupted run instead of planning afresh.
	changeFailoverResumesInterrupted = "failover-resumes-interrupted"
	// changeFailoverFallsBack (2026-11-25): a spare that cannot be provisioned is replaced by the next healthy management server.
	changeFailoverFallsBack = "failover-falls-back"
	// changeFailoverOneRackStandIn (2026-11-26): on a one-rack site, a failed KCP is replaced by a healthy management server.
	changeFailoverOneRackStandIn = "failover-one-rack-stand-in"
	// changeMonitorRestoresLabels (2026-11-27): the monitor hands the ledger the labels of a node that shows others than the ledger's (a Node registered anew).
	changeMonitorRestoresLabels = "monitor-restores-labels"
	// changeRemovalKeepsLastWorker (2026-11-27): a node whose drain kept the last Ready rackroll worker is not deleted (nor powered off).
	changeRemovalKeepsLastWorker = "removal-keeps-last-worker"
	// changeMonitorMovesBuild (2026-11-27): between rounds, a monitor whose deployment has another current build continues as new onto it (docs/self-upgrade.md).
	changeMonitorMovesBuild = "monitor-moves-build"
)
