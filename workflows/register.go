package workflows

import (
	"github.com/rackroll/rackroll/workflows/api"
	"go.temporal.io/sdk/workflow"
	"go.temporal.io/sdk/worker"
)

// Register puts every rackroll workflow on r under its DESIGN.md name.
func Register(r worker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(ClusterWorkflow, workflow.RegisterOptions{Name: api.ClusterWorkflowName})
}
