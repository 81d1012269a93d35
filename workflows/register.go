package workflows

import (
	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Register puts every rackroll workflow on r under its docs/design.md name.
func Register(r worker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(ClusterWorkflow, workflow.RegisterOptions{Name: api.ClusterWorkflowName})
	r.RegisterWorkflowWithOptions(RuntimeUpgradeWorkflow, workflow.RegisterOptions{Name: api.RuntimeUpgradeWorkflowName})
	r.RegisterWorkflowWithOptions(RackUpgradeWorkflow, workflow.RegisterOptions{Name: api.RackUpgradeWorkflowName})
	r.RegisterWorkflowWithOptions(ServerUpgradeWorkflow, workflow.RegisterOptions{Name: api.ServerUpgradeWorkflowName})
	r.RegisterWorkflowWithOptions(BMMActionWorkflow, workflow.RegisterOptions{Name: api.BMMActionWorkflowName})
	r.RegisterWorkflowWithOptions(TroubleshootWorkflow, workflow.RegisterOptions{Name: api.TroubleshootWorkflowName})
	r.RegisterWorkflowWithOptions(HealthMonitorWorkflow, workflow.RegisterOptions{Name: api.HealthMonitorWorkflowName})
	r.RegisterWorkflowWithOptions(RemediationWorkflow, workflow.RegisterOptions{Name: api.RemediationWorkflowName})
	r.RegisterWorkflowWithOptions(KCPFailoverWorkflow, workflow.RegisterOptions{Name: api.KCPFailoverWorkflowName})
	r.RegisterWorkflowWithOptions(ReplaceRolesWorkflow, workflow.RegisterOptions{Name: api.ReplaceRolesWorkflowName})
}
