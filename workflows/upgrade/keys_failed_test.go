package upgrade

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"
)

// A failed upgrade reinstalled servers before it failed (here the spare
// and a KCP): their keys are re-established as after a completed one; a
// failed run recorded before the change asks for nothing.
func TestFailedUpgradeReestablishesKeys(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before bool
		want   []api.KeysetInput
	}{
		{"now", false, []api.KeysetInput{{Cluster: "site-a", Nodes: true, AfterReinstall: true}}},
		{"before keys-after-failure", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
			kcp, _ := wftest.PlacedRoles(f)
			f.Failing[kcp[1]] = "reimage failed: no bootable OS"
			if tc.before {
				env.OnGetVersion(changeKeysAfterFailure, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
			}
			env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
			require.ErrorContains(t, env.GetWorkflowError(), "KCP "+kcp[1]+" failed to upgrade")
			require.NotEmpty(t, f.Reimages, "servers were reinstalled before the failure")
			require.Equal(t, tc.want, f.KeysetRuns)
		})
	}
}
