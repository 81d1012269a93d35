package upgrade

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// An upgrade of the one-rack site while a KCP is Unknown touches no KCP:
// it pauses before the first KCP step with the status naming the sick
// server; once the server is healthy and the operator continues, it goes on
// to the end.
func TestUpgradePausesAtKCPStepWhileAMemberIsUnhealthy(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("one-rack.yaml"))
	kcp, _ := wftest.PlacedRoles(f)
	require.Len(t, kcp, 3)
	f.Set(kcp[1], func(n *wftest.FakeNode) { n.Ready = model.ReadyUnknown })
	var paused []string
	var reimagedWhilePaused []string
	wftest.EachPause(t, env, 120, func(st api.UpgradeStatus) {
		paused = append(paused, st.DetailedStatusMessage)
		f.Mu.Lock()
		reimagedWhilePaused = append([]string(nil), f.Reimages...)
		f.Mu.Unlock()
		if len(paused) == 2 { // the operator mends it, then continues
			f.Set(kcp[1], func(n *wftest.FakeNode) { n.Ready = model.ReadyTrue })
		}
		wftest.SendUpdate(env, api.UpdateContinue, "c"+st.DetailedStatusMessage, &wftest.UpdateResult{}, nil)
	})
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())
	require.GreaterOrEqual(t, len(paused), 2, "paused, continued while still sick, paused again: %v", paused)
	for _, p := range paused[:2] {
		require.Contains(t, p, "KCP step "+kcp[0]+" paused by the live control-plane check")
		require.Contains(t, p, kcp[1])
		require.Contains(t, p, "Ready=Unknown")
	}
	for _, b := range reimagedWhilePaused {
		require.NotContains(t, kcp, b, "no KCP touched while a member is unhealthy")
	}
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.PhaseDone, st.Phase, st.DetailedStatusMessage)
	require.Equal(t, model.ClusterRunning, f.St.Cluster.DetailedStatus)
}

// A member falls sick while the step drains its server: the gate asked
// again just before the reimage refuses, the upgrade pauses naming it, and
// once healthy and continued the step runs again to the end.
func TestUpgradeKCPStepRecheckedBeforeTheReimage(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("one-rack.yaml"))
	kcp, _ := wftest.PlacedRoles(f)
	// The server workflow's checks: 1, 2 before and after the lease; 3 before the reimage.
	f.OnCPObserve = func(n int) {
		if n == 3 {
			f.Nodes[kcp[1]].Ready = model.ReadyUnknown
		}
	}
	var paused []string
	var reimagedAtPause []string
	wftest.EachPause(t, env, 120, func(st api.UpgradeStatus) {
		paused = append(paused, st.DetailedStatusMessage)
		f.Mu.Lock()
		reimagedAtPause = append([]string(nil), f.Reimages...)
		f.Nodes[kcp[1]].Ready = model.ReadyTrue
		f.Mu.Unlock()
		wftest.SendUpdate(env, api.UpdateContinue, "c"+st.DetailedStatusMessage, &wftest.UpdateResult{}, nil)
	})
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, paused, 1, "%v", paused)
	require.Contains(t, paused[0], "before the reimage")
	require.Contains(t, paused[0], kcp[1]+" is unhealthy")
	require.Empty(t, reimagedAtPause, "the reimage did not start")
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.PhaseDone, st.Phase, st.DetailedStatusMessage)
	require.Equal(t, 1, count(f.Reimages, kcp[0]), "the step ran again, reimaging once")
}

func count(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}
