package workflows

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

// PauseAfterRack pauses after every rack but the last; each continue-update
// starts the next rack. The wait timer runs before the pause.
func TestPauseAfterRackAndContinue(t *testing.T) {
	f, env := siteEnv(t, "../examples/four-rack.yaml")
	var paused []string
	var conts []*updateResult
	// Continue whenever paused.
	eachPause(t, env, 200, func(st api.UpgradeStatus) {
		paused = append(paused, st.DetailedStatusMessage)
		r := &updateResult{}
		conts = append(conts, r)
		sendUpdate(env, api.UpdateContinue, "c"+st.DetailedStatusMessage, r, nil)
	})
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{StrategyType: model.StrategyPauseAfterRack, WaitTimeMinutes: intp(5)}))
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, paused, 3, "a pause after racks 1, 2 and 3: %v", paused)
	require.Contains(t, paused[0], "rack rack1 done (8 of 8 upgraded); paused after the rack: continue-update to start rack rack2")
	for _, c := range conts {
		require.NoError(t, c.rejected)
	}
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.PhaseDone, st.Phase)
	require.Equal(t, model.ClusterRunning, f.st.Cluster.DetailedStatus)
}

// A rack misses its threshold; the operator cancels: no further rack
// starts, the cluster returns to Running on its old version with a
// message, and the upgrade says Cancelled.
func TestRackMissingThresholdThenCancel(t *testing.T) {
	f, env := siteEnv(t, "../examples/four-rack.yaml")
	f.failing["rack1-c1"] = "power-on failed"
	f.failing["rack1-c2"] = "power-on failed"
	var cancel updateResult
	env.RegisterDelayedCallback(func() {
		sendUpdate(env, api.UpdateCancel, "x", &cancel, nil)
	}, 5*time.Hour)
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())
	require.NoError(t, cancel.rejected)
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.StateCancelled, st.DetailedStatus)
	require.Equal(t, api.StatePending, st.Racks[1].State, "rack2 never started")
	for _, b := range f.reimages {
		if f.bmm(b).HasRole(model.RoleCompute) {
			require.Equal(t, "rack1", f.bmm(b).Rack, "no compute server past rack1 after cancel")
		}
	}
	require.Equal(t, model.ClusterRunning, f.st.Cluster.DetailedStatus)
	require.Equal(t, "4.1.2", f.st.Cluster.RuntimeVersion)
	require.Contains(t, f.st.Cluster.DetailedStatusMessage, "cancelled by the operator")
	require.Empty(t, f.st.Leases)
}

// A KCP that fails its reimage fails the upgrade (Failed, message naming
// the server); running the upgrade again resumes it, skipping servers at
// the target.
func TestKCPFailureFailsThenResumes(t *testing.T) {
	f, env := siteEnv(t, "../examples/four-rack.yaml")
	kcp, spare := placedRoles(f)
	f.failing[kcp[1]] = "reimage failed: no bootable OS"
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{}))
	err := env.GetWorkflowError()
	require.Error(t, err)
	require.Contains(t, err.Error(), "KCP "+kcp[1]+" failed to upgrade")
	require.Equal(t, model.ClusterFailed, f.st.Cluster.DetailedStatus)
	require.Contains(t, f.st.Cluster.DetailedStatusMessage, kcp[1])
	require.Equal(t, []string{spare, kcp[0], kcp[1]}, f.reimages)
	require.Empty(t, f.st.Leases)

	// The operator fixes the server and runs the upgrade again.
	delete(f.failing, kcp[1])
	f.reimages = nil
	f.mu.Lock()
	b := f.bmm(kcp[1])
	b.DetailedStatus, b.DetailedStatusMessage = model.BMMProvisioned, ""
	f.mu.Unlock()
	env2 := f.newEnv()
	env2.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{WaitTimeMinutes: intp(0)}))
	require.NoError(t, env2.GetWorkflowError())
	require.Equal(t, kcp[1], f.reimages[0], "resumes at the failed KCP; the spare and the first KCP are skipped")
	require.NotContains(t, f.reimages, spare)
	require.NotContains(t, f.reimages, kcp[0])
	require.Equal(t, model.RoleKCPSpare, f.role(kcp[2]))
	require.Equal(t, "4.2.0", f.st.Cluster.RuntimeVersion)
}

// Preflight refusals happen before any side effect.
func TestPreflightRefusesWithoutSideEffects(t *testing.T) {
	for _, tc := range []struct {
		name, version string
		strategy      model.UpdateStrategy
		want          string
	}{
		{"minor skip", "4.3.0", model.UpdateStrategy{}, "skips minor release 4.2"},
		{"same version", "4.1.2", model.UpdateStrategy{}, "4.1.2"},
		{"downgrade", "4.0.1", model.UpdateStrategy{}, "4.0.1"},
		{"count above rack size", "4.2.0", model.UpdateStrategy{ThresholdType: model.ThresholdCountSuccess, ThresholdValue: 9}, "has only 8 compute servers"},
		{"wait out of range", "4.2.0", model.UpdateStrategy{WaitTimeMinutes: intp(90)}, "waitTimeMinutes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, env := siteEnv(t, "../examples/four-rack.yaml")
			in := upgradeInput(tc.strategy)
			in.TargetVersion = tc.version
			env.ExecuteWorkflow(RuntimeUpgradeWorkflow, in)
			err := env.GetWorkflowError()
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			require.Empty(t, f.reimages)
			require.Equal(t, model.ClusterRunning, f.st.Cluster.DetailedStatus, "cluster untouched")
			require.Empty(t, f.st.UpgradeTarget)
		})
	}
}

// CountSuccess equal to the rack size: one failure misses it.
func TestCountSuccessEqualToRackSize(t *testing.T) {
	f, env := siteEnv(t, "../examples/four-rack.yaml")
	f.failing["rack3-c8"] = "disk error"
	var paused string
	env.RegisterDelayedCallback(func() {
		v, _ := env.QueryWorkflow(api.QueryStatus)
		var st api.UpgradeStatus
		v.Get(&st)
		paused = st.DetailedStatusMessage
		var r updateResult
		sendUpdate(env, api.UpdateCancel, "x", &r, nil)
	}, 10*time.Hour)
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{ThresholdType: model.ThresholdCountSuccess, ThresholdValue: 8, WaitTimeMinutes: intp(0)}))
	require.NoError(t, env.GetWorkflowError())
	require.Contains(t, paused, "rack rack3 missed its threshold: 7 of 8 servers upgraded, 8 needed; failed: rack3-c8")
}

// The drain and VM-shutdown limits are passed on, and a drain that runs
// out of time does not stop the server's upgrade (docs/behaviour.md#time-limits).
func TestDrainAndVMShutdownLimitsThenProceed(t *testing.T) {
	f, env := siteEnv(t, "../examples/four-rack.yaml")
	f.slowTenants = true
	var res api.ServerResult
	in := api.ServerInput{Cluster: "site-a", BMM: "rack1-c1", TargetVersion: "4.2.0", ImageURL: "http://images/rackroll-4.2.0.iso"}
	env.ExecuteWorkflow(ServerUpgradeWorkflow, in)
	require.NoError(t, env.GetWorkflowError())
	require.NoError(t, env.GetWorkflowResult(&res))
	require.True(t, res.Succeeded, res.Error)
	require.True(t, res.DrainTimedOut && res.VMsTimedOut)
	require.Len(t, f.drains, 1)
	require.Equal(t, 20*time.Minute, f.drains[0].Timeout)
	require.Len(t, f.vmStops, 1)
	require.Equal(t, 10*time.Minute, f.vmStops[0].Timeout)
	require.Equal(t, []string{"rack1-c1"}, f.reimages)
}
