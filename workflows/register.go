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

// Register puts every rackroll workflow on r under its docs/design.md name.
func Register(r worker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(cluster.ClusterWorkflow, workflow.RegisterOptions{Name: api.ClusterWorkflowName})
	r.RegisterWorkflowWithOptions(upgrade.RuntimeUpgradeWorkflow, workflow.RegisterOptions{Name: api.RuntimeUpgradeWorkflowName})
	r.RegisterWorkflowWithOptions(upgrade.RackUpgradeWorkflow, workflow.RegisterOptions{Name: api.RackUpgradeWorkflowName})
	r.RegisterWorkflowWithOptions(upgrade.ServerUpgradeWorkflow, workflow.RegisterOptions{Name: api.ServerUpgradeWorkflowName})
	r.RegisterWorkflowWithOptions(actions.BMMActionWorkflow, workflow.RegisterOptions{Name: api.BMMActionWorkflowName})
	r.RegisterWorkflowWithOptions(actions.TroubleshootWorkflow, workflow.RegisterOptions{Name: api.TroubleshootWorkflowName})
	r.RegisterWorkflowWithOptions(remediation.HealthMonitorWorkflow, workflow.RegisterOptions{Name: api.HealthMonitorWorkflowName})
	r.RegisterWorkflowWithOptions(remediation.RemediationWorkflow, workflow.RegisterOptions{Name: api.RemediationWorkflowName})
	r.RegisterWorkflowWithOptions(remediation.KCPFailoverWorkflow, workflow.RegisterOptions{Name: api.KCPFailoverWorkflowName})
	r.RegisterWorkflowWithOptions(replaceroles.ReplaceRolesWorkflow, workflow.RegisterOptions{Name: api.ReplaceRolesWorkflowName})
	r.RegisterWorkflowWithOptions(keysets.KeysetWorkflow, workflow.RegisterOptions{Name: api.KeysetWorkflowName})
}
