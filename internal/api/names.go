// Package api holds what users and other packages share with rackroll's
// workflows: names, ids and input/output types. Names here are part of the
// user interface (docs/design.md): the temporal CLI, the UI and scripts use them,
// so they never change silently.
package api

import "fmt"

// TaskQueue is the one task queue the worker polls.
const TaskQueue = "rackroll"

// Workflow types: every rackroll workflow's type name, the one place they
// are written (docs/design.md#the-workflows-and-their-ids says what each
// does). WorkflowNames lists them; workflows.Register registers each.
const (
	ClusterWorkflowName        = "ClusterWorkflow"        // the ledger
	RuntimeUpgradeWorkflowName = "RuntimeUpgradeWorkflow" // a runtime upgrade
	RackUpgradeWorkflowName    = "RackUpgradeWorkflow"    // one unit of an upgrade
	ServerUpgradeWorkflowName  = "ServerUpgradeWorkflow"  // one server of an upgrade
	BMMActionWorkflowName      = "BMMActionWorkflow"      // an operator action on one BMM
	TroubleshootWorkflowName   = "TroubleshootWorkflow"   // the escalation runbook (docs/behaviour.md#troubleshooting)
	HealthMonitorWorkflowName  = "HealthMonitorWorkflow"  // the remediation triggers
	RemediationWorkflowName    = "RemediationWorkflow"    // one BMM's remediation ladder
	KCPFailoverWorkflowName    = "KCPFailoverWorkflow"    // a failed KCP swapped for the spare
	ReplaceRolesWorkflowName   = "ReplaceRolesWorkflow"   // control-plane roles moved to the placement table
	// KeysetWorkflowName applies a BMC keyset to every BMC, or (run as
	// KeysetNodesID) the BMM keysets to every node (workflows/keysets).
	KeysetWorkflowName = "KeysetWorkflow"
)

// WorkflowNames is every workflow type name above.
func WorkflowNames() []string {
	return []string{ClusterWorkflowName, RuntimeUpgradeWorkflowName, RackUpgradeWorkflowName, ServerUpgradeWorkflowName,
		BMMActionWorkflowName, TroubleshootWorkflowName, HealthMonitorWorkflowName, RemediationWorkflowName,
		KCPFailoverWorkflowName, ReplaceRolesWorkflowName, KeysetWorkflowName, FleetWorkflowName}
}

// Signals, queries and updates.
const (
	QueryState         = "state"
	QueryStatus        = "status"
	QueryBMM           = "bmm"
	QueryPage          = "page"
	UpdateContinue     = "continue-update"
	SignalContinue     = "continue-update"
	UpdateCancel       = "cancel-update"
	UpdatePause        = "pause-update" // PauseRequest: pause before the next unit starts
	SignalCancel       = "cancel-update"
	SignalRackProgress = "rack-progress"
	// SignalSelfUpgrade makes a workflow task in a long run that waits, so
	// that it sees a new current rackroll build and moves to it; it changes
	// nothing else (docs/self-upgrade-moves.md#waking-a-run-that-waits).
	SignalSelfUpgrade    = "self-upgrade"
	UpdateAcquireLease   = "acquire-lease"
	UpdateReleaseLease   = "release-lease"
	UpdateRegister       = "register"
	UpdateRecordBMM      = "record-bmm"
	UpdateClusterStatus  = "set-cluster-status"
	SignalConfirmReplace = "confirm-replace"
	UpdateResume         = "resume"              // break-glass: Degraded/Failed → Running
	UpdateBreakGlassFree = "break-glass-release" // break-glass: free an ended holder's lease
)

// Search attributes (Keyword), registered by `make dev-server`.
const (
	SearchAttrCluster   = "RackrollCluster"
	SearchAttrOperation = "RackrollOperation"
	SearchAttrPhase     = "RackrollPhase"
)

// Workflow ids (docs/design.md#the-workflows-and-their-ids).
func ClusterID(cluster string) string            { return "cluster:" + cluster }
func UpgradeID(cluster string) string            { return "upgrade:" + cluster }
func MonitorID(cluster string) string            { return "monitor:" + cluster }
func FailoverID(cluster string) string           { return "failover:" + cluster }
func RackUpgradeID(cluster, rack string) string  { return "upgrade:" + cluster + ":unit:" + rack }
func ServerUpgradeID(cluster, bmm string) string { return "upgrade:" + cluster + ":" + bmm }
func RemediationID(cluster, bmm string) string   { return "remediate:" + cluster + ":" + bmm }
func ActionID(cluster, bmm string, n int) string {
	return fmt.Sprintf("action:%s:%s:%d", cluster, bmm, n)
}
