package upgrade

import (
	"context"
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
)

// The capacity check runs where the site's Kubernetes activities run
// (capacity-local): on the workflow's own worker it is a local activity,
// one round trip shorter on every rack's critical path; with a site worker
// elsewhere (a site task queue) it stays an activity on that queue. Either
// way every batch is checked once, before its drain.
func TestCapacityCheckRunsWhereTheSiteActivitiesRun(t *testing.T) {
	for _, tc := range []struct {
		name, queue string
		local       bool
	}{
		{"workflow's own worker", "", true},
		{"site worker", "rackroll-site-lab-two", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, env := wftest.SiteEnv(t, wftest.Example("two-rack.yaml"))
			f.St.SiteTaskQueue = tc.queue
			var local, remote []string
			env.SetOnLocalActivityStartedListener(func(info *activity.Info, _ context.Context, _ []any) {
				if info.ActivityType.Name == "CheckCapacity" {
					local = append(local, info.WorkflowExecution.ID)
				}
			})
			env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
				if info.ActivityType.Name == "CheckCapacity" {
					remote = append(remote, info.WorkflowExecution.ID+" on "+info.TaskQueue)
				}
			})
			env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{WaitTimeMinutes: wftest.Intp(0)}))
			require.NoError(t, env.GetWorkflowError())
			require.NotEmpty(t, f.CapacityChecks)
			if tc.local {
				require.Empty(t, remote)
				require.Len(t, local, len(f.CapacityChecks), "each batch checked once, locally: %v", local)
				return
			}
			require.Empty(t, local)
			require.Len(t, remote, len(f.CapacityChecks), "each batch checked once, on the site queue: %v", remote)
			for _, r := range remote {
				require.Contains(t, r, " on "+tc.queue)
			}
		})
	}
}
