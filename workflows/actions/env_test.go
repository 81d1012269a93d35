package actions

import (
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
)

func init() {
	wftest.Workflows[api.BMMActionWorkflowName] = BMMActionWorkflow
	wftest.Workflows[api.TroubleshootWorkflowName] = TroubleshootWorkflow
}
