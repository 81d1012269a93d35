package wiring

import (
	"fmt"
	"testing"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"
)

func TestActivityLogFields(t *testing.T) {
	info := func(id, typ string) activity.Info {
		return activity.Info{WorkflowExecution: workflow.Execution{ID: id}, WorkflowType: &workflow.Type{Name: typ}}
	}
	for _, tc := range []struct {
		info activity.Info
		args []any
		want string
	}{
		{info("upgrade:site-a:rack1-c1", api.ServerUpgradeWorkflowName), []any{bmc.ReimageInput{Endpoint: bmc.Endpoint{BMM: "rack1-c1"}}}, "[cluster site-a bmm rack1-c1]"},
		{info("upgrade:site-a:rack1-c1", api.ServerUpgradeWorkflowName), []any{"rack1-c1-node"}, "[cluster site-a bmm rack1-c1]"},
		{info("action:site-a:rack1-c2:7", api.BMMActionWorkflowName), []any{ledger.RecordInput{Cluster: "site-a", Patch: api.BMMPatch{BMM: "rack1-c2"}}}, "[cluster site-a bmm rack1-c2]"},
		// A rack's id names a rack, not a BMM.
		{info("upgrade:site-a:rack1", api.RackUpgradeWorkflowName), []any{"site-a"}, "[cluster site-a]"},
		{info("monitor:site-a", api.HealthMonitorWorkflowName), []any{[]string{"n1"}}, "[cluster site-a]"},
	} {
		if got := fmt.Sprint(activityLogFields(tc.info, tc.args)); got != tc.want {
			t.Errorf("%s %v: %s, want %s", tc.info.WorkflowExecution.ID, tc.args, got, tc.want)
		}
	}
}
