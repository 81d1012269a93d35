package upgrade

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// The BMM keysets are re-established once the upgrade has ended, not
// rack by rack: no keyset run at any pause between racks, one after the
// last, asked for every node after a reinstall; the status says so.
func TestUpgradeReestablishesKeysAfterItsLastRack(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	var atPauses []int
	wftest.EachPause(t, env, 200, func(st api.UpgradeStatus) {
		f.Mu.Lock()
		atPauses = append(atPauses, len(f.KeysetRuns))
		f.Mu.Unlock()
		wftest.SendUpdate(env, api.UpdateContinue, "c"+st.DetailedStatusMessage, &wftest.UpdateResult{}, nil)
	})
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{StrategyType: model.StrategyPauseAfterRack}))
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []int{0, 0, 0}, atPauses, "nothing re-established between racks")
	require.Equal(t, []api.KeysetInput{{Cluster: "site-a", Nodes: true, AfterReinstall: true}}, f.KeysetRuns)
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, "BMM keysets being re-established on every node: workflow "+api.KeysetNodesID("site-a"), st.KeysNote)
}

// A cancelled upgrade reinstalled servers too: their keys are
// re-established all the same.
func TestCancelledUpgradeReestablishesKeys(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	wftest.EachPause(t, env, 200, func(api.UpgradeStatus) {
		wftest.SendUpdate(env, api.UpdateCancel, "c", &wftest.UpdateResult{}, nil)
	})
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{StrategyType: model.StrategyPauseAfterRack}))
	require.NoError(t, env.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.StateCancelled, st.DetailedStatus)
	require.Len(t, f.KeysetRuns, 1)
}
