package upgrade

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// A rack that misses its threshold pauses the upgrade; continue-update goes
// on to the next rack; the failed server stays cordoned and is listed.
func TestRackMissingThresholdPausesThenContinues(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	// 8 servers at 80 % need 7: two failures miss it.
	f.Failing["rack2-c1"] = "image checksum mismatch"
	f.Failing["rack2-c2"] = "image checksum mismatch"
	var paused api.UpgradeStatus
	var early wftest.UpdateResult
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateContinue, "early", &early, nil)
	}, time.Second)
	cont := pauseThenContinue(t, env, &paused, 3*time.Hour)
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())

	require.ErrorContains(t, early.Rejected, "is not paused")
	require.Equal(t, model.ClusterUpdatePaused, paused.DetailedStatus)
	require.Contains(t, paused.DetailedStatusMessage, "rack rack2 missed its threshold: 6 of 8")
	require.Contains(t, paused.DetailedStatusMessage, "rack2-c1, rack2-c2")
	require.NoError(t, cont.Rejected)
	require.True(t, f.Cordoned["rack2-c1"], "a failed server stays cordoned")

	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus)
	require.Equal(t, api.StateFailed, st.Racks[1].State)
	require.Equal(t, 2, st.Racks[1].Failed)
	require.Equal(t, api.StateSucceeded, st.Racks[3].State)
}

// A rack misses its threshold; the operator cancels: no further rack
// starts, the cluster returns to Running on its old version with a
// message, and the upgrade says Cancelled.
func TestRackMissingThresholdThenCancel(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	f.Failing["rack1-c1"] = "power-on failed"
	f.Failing["rack1-c2"] = "power-on failed"
	var cancel wftest.UpdateResult
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateCancel, "x", &cancel, nil)
	}, 5*time.Hour)
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())
	require.NoError(t, cancel.Rejected)
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.StateCancelled, st.DetailedStatus)
	require.Equal(t, api.StateCancelled, st.Racks[1].State, "rack2 never started: shown Cancelled")
	require.Nil(t, st.Racks[1].StartedAt)
	for _, b := range f.Reimages {
		if f.Bmm(b).HasRole(model.RoleCompute) {
			require.Equal(t, "rack1", f.Bmm(b).Rack, "no compute server past rack1 after cancel")
		}
	}
	require.Equal(t, model.ClusterRunning, f.St.Cluster.DetailedStatus)
	require.Equal(t, "4.1.2", f.St.Cluster.RuntimeVersion)
	require.Contains(t, f.St.Cluster.DetailedStatusMessage, "cancelled by the operator")
	require.Empty(t, f.St.Leases)
}

// CountSuccess equal to the rack size: one failure misses it.
func TestCountSuccessEqualToRackSize(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	f.Failing["rack3-c8"] = "disk error"
	var paused string
	env.RegisterDelayedCallback(func() {
		v, _ := env.QueryWorkflow(api.QueryStatus)
		var st api.UpgradeStatus
		v.Get(&st)
		paused = st.DetailedStatusMessage
		var r wftest.UpdateResult
		wftest.SendUpdate(env, api.UpdateCancel, "x", &r, nil)
	}, 10*time.Hour)
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{ThresholdType: model.ThresholdCountSuccess, ThresholdValue: 8, WaitTimeMinutes: wftest.Intp(0)}))
	require.NoError(t, env.GetWorkflowError())
	require.Contains(t, paused, "rack rack3 missed its threshold: 7 of 8 servers upgraded, 8 needed; failed: rack3-c8")
}

// PauseAfterRack pauses after every rack but the last; each continue-update
// starts the next rack. The wait timer runs before the pause.
func TestPauseAfterRackAndContinue(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	var paused []string
	var conts []*wftest.UpdateResult
	// Continue whenever paused.
	wftest.EachPause(t, env, 200, func(st api.UpgradeStatus) {
		paused = append(paused, st.DetailedStatusMessage)
		r := &wftest.UpdateResult{}
		conts = append(conts, r)
		wftest.SendUpdate(env, api.UpdateContinue, "c"+st.DetailedStatusMessage, r, nil)
	})
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{StrategyType: model.StrategyPauseAfterRack, WaitTimeMinutes: wftest.Intp(5)}))
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, paused, 3, "a pause after racks 1, 2 and 3: %v", paused)
	require.Contains(t, paused[0], "rack rack1 done (8 of 8 upgraded); paused after the rack: continue-update to start rack rack2")
	for _, c := range conts {
		require.NoError(t, c.Rejected)
	}
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.PhaseDone, st.Phase)
	require.Equal(t, model.ClusterRunning, f.St.Cluster.DetailedStatus)
}

// A management group whose first stage failed so badly that it can no
// longer reach 50 % pauses before its second stage: a bad image does not
// take the rest of the group down. Cancelled there, stage 2 never runs.
func TestManagementStageTwoWaitsForTheThreshold(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	stage1, stage2 := []string{"rack1-mgmt2", "rack3-mgmt2"}, "rack4-mgmt3"
	for _, b := range stage1 {
		f.Failing[b] = "image checksum mismatch"
	}
	var paused api.UpgradeStatus
	var calls []string
	var cancel wftest.UpdateResult
	env.RegisterDelayedCallback(func() {
		wftest.Query(t, env, &paused)
		calls = f.CallLog()
		wftest.SendUpdate(env, api.UpdateCancel, "c1", &cancel, nil)
	}, 3*time.Hour)
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())

	require.Equal(t, [][]string{stage1, {stage2}}, paused.Plan.Management[0].Stages, "the example's group a")
	require.Equal(t, model.ClusterUpdatePaused, paused.DetailedStatus)
	require.Contains(t, paused.DetailedStatusMessage, "management group a: 2 of 3 servers failed (rack1-mgmt2, rack3-mgmt2)")
	require.Contains(t, paused.DetailedStatusMessage, "stage 2 not started")
	require.Equal(t, api.StatePaused, paused.ManagementGroups[0].State)
	require.Equal(t, -1, wftest.IndexOf(calls, "Reimage "+stage2), "stage 2 did not start while paused")
	require.NoError(t, cancel.Rejected)
	require.Equal(t, -1, wftest.IndexOf(f.CallLog(), "Reimage "+stage2), "nor after the cancel")
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.StateCancelled, st.DetailedStatus)
}
