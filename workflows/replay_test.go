package workflows

import (
	"path/filepath"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/workflows/actions"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/rackroll/rackroll/workflows/upgrade"
	"go.temporal.io/sdk/worker"
)

// Every recorded history (make histories) must replay with today's code:
// a change that alters a workflow's commands without workflow.GetVersion
// fails here.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob("testdata/histories/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded histories in testdata/histories: run `make histories`")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			Register(r)
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
				t.Fatalf("%s no longer replays: %v", f, err)
			}
		})
	}
}

// The cross-family tests start the upgrade's children and the actions by name.
func init() {
	wftest.Workflows[api.RackUpgradeWorkflowName] = upgrade.RackUpgradeWorkflow
	wftest.Workflows[api.ServerUpgradeWorkflowName] = upgrade.ServerUpgradeWorkflow
	wftest.Workflows[api.BMMActionWorkflowName] = actions.BMMActionWorkflow
	wftest.Workflows[api.TroubleshootWorkflowName] = actions.TroubleshootWorkflow
}
