package workflows

import "go.temporal.io/sdk/worker"

// Register puts every rackroll workflow on r under its DESIGN.md name.
// Workflows are added here as they are built.
func Register(r worker.WorkflowRegistry) {
	_ = r
}
