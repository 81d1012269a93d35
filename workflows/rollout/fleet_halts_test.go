package rollout

import (
	"errors"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/fleet"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"
)

// Cancel in the middle of wave 2, asking for the sites too: no site is
// half-started — every site the fleet shows running was started, every
// one it shows pending was not — and exactly the running ones are asked
// to cancel.
func TestFleetCancelLeavesNoSiteHalfStarted(t *testing.T) {
	env := wftest.QuietEnv()
	f := newFakeFleet(env)
	all := names(9)
	f.dur["site-02"] = time.Hour // done before the others of wave 2
	startRollout(t, env)
	var cancel wftest.UpdateResult
	at(env, 4*time.Hour, func() { // wave 2 (02-05) started at 2 h 5 m
		wftest.SendUpdate(env, api.UpdateCancel, "cancel", &cancel, api.FleetCancelRequest{Sites: true})
	})
	var last api.FleetStatus
	endWhen(t, env, 10*time.Hour, &last)
	env.ExecuteWorkflow(FleetWorkflow, api.FleetInput{Spec: fleet.Spec{Name: "prod", Clusters: all, Canary: all[:1], WaveSize: 4}, Tuning: tuned})
	require.NoError(t, cancel.Rejected)
	require.Equal(t, fleet.StateCancelled, last.State)
	var running []string
	for _, s := range last.Rollout.Sites {
		_, started := f.startedAt(s.Cluster)
		require.Equal(t, started, s.Verdict != fleet.Pending, "%s: %s, started by the fake: %v", s.Cluster, s.Verdict, started)
		if s.Verdict == fleet.Running {
			running = append(running, s.Cluster)
		}
	}
	require.Equal(t, []string{"site-03", "site-04", "site-05"}, running)
	require.Equal(t, running, f.cancelled, "the running sites, and only they, asked to cancel")
	require.Len(t, f.startCalls(), 2, "wave 3 never started")
}

// A remediation storm at a site that already succeeded halts the rollout
// during its wave's bake; so does a site whose workers went silent.
func TestFleetHaltsOnStormDuringBakeAndOnSilence(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    fleet.Reading
	}{
		{"storm", fleet.Reading{Verdict: fleet.Storm, Detail: "storm guard: 3 control-plane nodes unhealthy"}},
		{"unreachable", fleet.Reading{Verdict: fleet.Unreachable, Detail: "no worker polled its task queue for 11m0s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := wftest.QuietEnv()
			f := newFakeFleet(env)
			all := names(4)
			startRollout(t, env)
			// The canary succeeds at 2 h; the bake runs to 2 h + 3 h.
			at(env, 3*time.Hour, func() { f.set("site-01", tc.r, 0) })
			at(env, 9*time.Hour, func() {
				st := status(t, env)
				require.Equal(t, fleet.StateHalted, st.State)
				require.Equal(t, fleet.Halt{Site: "site-01", Verdict: tc.r.Verdict, Reason: tc.r.Detail, At: st.Rollout.Halt.At}, *st.Rollout.Halt)
				require.Len(t, f.startCalls(), 1, "the bake ended hours ago: still no other site")
				env.CancelWorkflow()
			})
			env.ExecuteWorkflow(FleetWorkflow, api.FleetInput{Spec: fleet.Spec{Name: "prod", Clusters: all, Canary: all[:1], WaveSize: 3, BakeMinutes: 180}, Tuning: tuned})
			require.Error(t, env.GetWorkflowError(), "cancelled while halted")
		})
	}
}

// Pause stops new sites, not the running ones; continue goes on. Updates
// that make no sense now are refused, naming the state.
func TestFleetPauseAndContinue(t *testing.T) {
	env := wftest.QuietEnv()
	f := newFakeFleet(env)
	all := names(3)
	var early, pause, twice, cont, spec wftest.UpdateResult
	var continuedAt time.Time
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateContinue, "early", &early, nil)
	}, 0)
	startRollout(t, env)
	at(env, time.Hour, func() {
		wftest.SendUpdate(env, api.UpdateFleetPause, "pause", &pause, api.FleetPauseRequest{By: "alice"})
	})
	at(env, time.Hour+time.Minute, func() {
		wftest.SendUpdate(env, api.UpdateFleetPause, "twice", &twice, api.FleetPauseRequest{})
		wftest.SendUpdate(env, api.UpdateFleetSpec, "spec", &spec, api.FleetSpecRequest{Spec: fleet.Spec{Name: "prod", Clusters: all, WaveSize: 3}})
	})
	at(env, 6*time.Hour, func() {
		st := status(t, env)
		require.Equal(t, fleet.StatePaused, st.State)
		require.Equal(t, fleet.Succeeded, st.Rollout.Sites[0].Verdict, "the running canary went on")
		require.Len(t, f.startCalls(), 1, "paused: wave 2 not started")
		continuedAt = env.Now()
		wftest.SendUpdate(env, api.UpdateContinue, "continue", &cont, nil)
	})
	last := rollThree(t, env)
	require.ErrorContains(t, early.Rejected, "no rollout in progress to be continued (Idle)")
	require.NoError(t, pause.Rejected)
	require.ErrorContains(t, twice.Rejected, "already paused")
	require.ErrorContains(t, spec.Rejected, "its spec changes")
	require.NoError(t, cont.Rejected)
	require.Equal(t, fleet.StateCompleted, last.State)
	began, _ := f.startedAt("site-02")
	require.False(t, began.Before(continuedAt), "wave 2 after the continue")
}

// A long rollout continues as new with its status, and the next run goes
// on from there: the started sites are followed, not started again.
func TestFleetContinuesAsNewWithItsRollout(t *testing.T) {
	env := wftest.QuietEnv()
	f := newFakeFleet(env)
	all := names(5)
	startRollout(t, env)
	at(env, 3*time.Hour, func() { env.SetCurrentHistoryLength(maxHistory + 1) })
	env.ExecuteWorkflow(FleetWorkflow, api.FleetInput{Spec: fleet.Spec{Name: "prod", Clusters: all, Canary: all[:1], WaveSize: 4}, Tuning: tuned})
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "the fleet continues as new: %v", env.GetWorkflowError())
	var next api.FleetInput
	require.NoError(t, wftest.ConverterFor().FromPayloads(can.Input, &next))
	require.NotNil(t, next.Carry)
	ro := next.Carry.Status.Rollout
	require.Equal(t, 1, ro.Wave, "the canary done, wave 2 running")
	require.Equal(t, fleet.Running, ro.Sites[1].Verdict)

	env2 := wftest.QuietEnv()
	f2 := newFakeFleet(env2)
	for _, c := range all[1:] { // the sites go on where they were
		f2.started[c] = env2.Now().Add(-55 * time.Minute)
	}
	var last api.FleetStatus
	endWhen(t, env2, 10*time.Hour, &last)
	env2.ExecuteWorkflow(FleetWorkflow, next)
	require.Equal(t, fleet.StateCompleted, last.State)
	require.Empty(t, f2.startCalls(), "no site started twice")
	require.Len(t, f.startCalls(), 2)
}

// A site whose start is refused halts the rollout and is not followed;
// continue acknowledges it and the next wave goes, the refused site
// staying failed in the status.
func TestFleetRefusedStartHaltsUntilContinued(t *testing.T) {
	env := wftest.QuietEnv()
	f := newFakeFleet(env)
	all := names(3)
	f.refused["site-01"] = "site-01 is not a registered cluster"
	startRollout(t, env)
	var cont wftest.UpdateResult
	at(env, 3*time.Hour, func() {
		st := status(t, env)
		require.Equal(t, fleet.StateHalted, st.State)
		require.Contains(t, st.Rollout.Halt.Reason, "not a registered cluster")
		require.Nil(t, st.Rollout.Sites[0].StartedAt, "not started, so not followed")
		wftest.SendUpdate(env, api.UpdateContinue, "continue", &cont, nil)
	})
	var last api.FleetStatus
	endWhen(t, env, 10*time.Hour, &last)
	env.ExecuteWorkflow(FleetWorkflow, api.FleetInput{Spec: fleet.Spec{Name: "prod", Clusters: all, Canary: all[:1], WaveSize: 2}, Tuning: tuned})
	require.NoError(t, cont.Rejected)
	require.Equal(t, fleet.StateCompleted, last.State)
	require.Equal(t, fleet.Failed, last.Rollout.Sites[0].Verdict)
	require.True(t, last.Rollout.Sites[0].Acknowledged)
	for _, s := range last.Rollout.Sites[1:] {
		require.Equal(t, fleet.Succeeded, s.Verdict, s.Cluster)
	}
}
