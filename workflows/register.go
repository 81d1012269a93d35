package workflows

import (
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/workflows/actions"
	"github.com/rackroll/rackroll/workflows/cluster"
	"github.com/rackroll/rackroll/workflows/keysets"
	"github.com/rackroll/rackroll/workflows/remediation"
	"github.com/rackroll/rackroll/workflows/replaceroles"
	"github.com/rackroll/rackroll/workflows/upgrade"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// pinned: a run replays only on the build it started on, so a new build
// may change workflow code for the runs it starts without breaking the
// runs in flight. The long runs (the upgrade, the ledger, the monitor)
// move to a new build on purpose, by continue-as-new at a safe point; the
// others finish where they started (docs/self-upgrade.md). The SDK sends
// the behaviour only from a versioned worker; an unversioned one (the
// default) ignores it.
const pinned = workflow.VersioningBehaviorPinned

// Register puts every rackroll workflow on r under its docs/design.md name.
func Register(r worker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(cluster.ClusterWorkflow, workflow.RegisterOptions{Name: api.ClusterWorkflowName, VersioningBehavior: pinned})
	r.RegisterWorkflowWithOptions(upgrade.RuntimeUpgradeWorkflow, workflow.RegisterOptions{Name: api.RuntimeUpgradeWorkflowName, VersioningBehavior: pinned})
	r.RegisterWorkflowWithOptions(upgrade.RackUpgradeWorkflow, workflow.RegisterOptions{Name: api.RackUpgradeWorkflowName, VersioningBehavior: pinned})
	r.RegisterWorkflowWithOptions(upgrade.ServerUpgradeWorkflow, workflow.RegisterOptions{Name: api.ServerUpgradeWorkflowName, VersioningBehavior: pinned})
	r.RegisterWorkflowWithOptions(actions.BMMActionWorkflow, workflow.RegisterOptions{Name: api.BMMActionWorkflowName, VersioningBehavior: pinned})
	r.RegisterWorkflowWithOptions(actions.TroubleshootWorkflow, workflow.RegisterOptions{Name: api.TroubleshootWorkflowName, VersioningBehavior: pinned})
	r.RegisterWorkflowWithOptions(remediation.HealthMonitorWorkflow, workflow.RegisterOptions{Name: api.HealthMonitorWorkflowName, VersioningBehavior: pinned})
	r.RegisterWorkflowWithOptions(remediation.RemediationWorkflow, workflow.RegisterOptions{Name: api.RemediationWorkflowName, VersioningBehavior: pinned})
	r.RegisterWorkflowWithOptions(remediation.KCPFailoverWorkflow, workflow.RegisterOptions{Name: api.KCPFailoverWorkflowName, VersioningBehavior: pinned})
	r.RegisterWorkflowWithOptions(replaceroles.ReplaceRolesWorkflow, workflow.RegisterOptions{Name: api.ReplaceRolesWorkflowName, VersioningBehavior: pinned})
	r.RegisterWorkflowWithOptions(keysets.KeysetWorkflow, workflow.RegisterOptions{Name: api.KeysetWorkflowName, VersioningBehavior: pinned})
}
