package rollout

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/fleet"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// A fleet of 50 sites: two canaries, then waves of twelve, an hour's bake
// after each wave. Every site is started once, each wave only once the
// one before it finished and baked, and the fleet's status stays small.
func TestFleetOfFiftyInWaves(t *testing.T) {
	env := wftest.QuietEnv()
	f := newFakeFleet(env)
	all := names(50)
	for i, c := range all {
		f.dur[c] = time.Duration(60+i%5*30) * time.Minute // an hour to three
	}
	spec := fleet.Spec{Name: "prod", Clusters: all, Canary: all[:2], WaveSize: 12, BakeMinutes: 60}
	startRollout(t, env)
	var last api.FleetStatus
	endWhen(t, env, 100*time.Hour, &last)
	env.ExecuteWorkflow(FleetWorkflow, api.FleetInput{Spec: spec, Tuning: tuned})

	require.NotNil(t, last.Rollout, "the rollout ended within 100 hours")
	require.Equal(t, fleet.StateCompleted, last.State)
	ro := last.Rollout
	require.Len(t, ro.Waves, 5) // 2, then 12 × 4
	calls := f.startCalls()
	require.Len(t, calls, 5, "one start per wave")
	for w, wave := range ro.Waves {
		require.Equal(t, wave.Sites, calls[w], "wave %d started whole, in order", w)
		if w == 0 {
			continue
		}
		// Every site of this wave started after every site of the one
		// before finished, plus the bake.
		var prevDone time.Time
		for _, s := range ro.Sites {
			if s.Wave == w-1 && s.FinishedAt.After(prevDone) {
				prevDone = *s.FinishedAt
			}
		}
		for _, c := range wave.Sites {
			began, ok := f.startedAt(c)
			require.True(t, ok, c)
			require.False(t, began.Before(prevDone.Add(time.Hour)), "%s started %v, before wave %d's end %v and its bake", c, began, w-1, prevDone)
			require.True(t, began.Before(prevDone.Add(time.Hour+2*tuned.WatchEvery)), "%s started %v: long after the bake ended", c, began)
		}
	}
	for _, s := range ro.Sites {
		require.Equal(t, fleet.Succeeded, s.Verdict, s.Cluster)
	}
	b, err := json.Marshal(last)
	require.NoError(t, err)
	require.Less(t, len(b), 64<<10, "the status of 50 sites: names and verdicts only")
}

// A failed canary halts the rollout before any other site starts; cancel
// then ends it with no other site started.
func TestFleetFailedCanaryHalts(t *testing.T) {
	env := wftest.QuietEnv()
	f := newFakeFleet(env)
	all := names(5)
	f.outcome["site-01"] = fleet.Reading{Verdict: fleet.Failed, Detail: "its upgrade failed: control plane"}
	startRollout(t, env)
	var cancel wftest.UpdateResult
	at(env, 10*time.Hour, func() {
		st := status(t, env)
		require.Equal(t, fleet.StateHalted, st.State)
		require.Equal(t, "site-01", st.Rollout.Halt.Site)
		require.Equal(t, fleet.Failed, st.Rollout.Halt.Verdict)
		require.Contains(t, st.Rollout.Halt.Reason, "control plane")
		require.Equal(t, [][]string{{"site-01"}}, f.startCalls(), "no site but the canary started")
		wftest.SendUpdate(env, api.UpdateCancel, "cancel", &cancel, api.FleetCancelRequest{By: "test"})
	})
	var last api.FleetStatus
	endWhen(t, env, 20*time.Hour, &last)
	env.ExecuteWorkflow(FleetWorkflow, api.FleetInput{Spec: fleet.Spec{Name: "prod", Clusters: all, Canary: all[:1], WaveSize: 2, BakeMinutes: 30}, Tuning: tuned})
	require.True(t, cancel.Done)
	require.NoError(t, cancel.Rejected)
	require.Equal(t, fleet.StateCancelled, last.State)
	require.Equal(t, [][]string{{"site-01"}}, f.startCalls(), "cancelled: still no other site started")
	for _, s := range last.Rollout.Sites[1:] {
		require.Equal(t, fleet.Pending, s.Verdict, s.Cluster)
	}
}

// A site paused on its threshold in wave 2 halts the rollout: wave 3 does
// not start. The operator continues the site (it finishes) and the fleet
// (continue-update): wave 3 starts and the rollout completes.
func TestFleetPausedSiteStopsTheNextWave(t *testing.T) {
	env := wftest.QuietEnv()
	f := newFakeFleet(env)
	all := names(7) // canary site-01; waves of 3: 02-04, 05-07
	f.outcome["site-03"] = fleet.Reading{Verdict: fleet.Paused, Detail: "paused at rack3: 2 of 8 servers failed"}
	startRollout(t, env)
	var again, cont wftest.UpdateResult
	var continuedAt time.Time
	// Wave 2 starts after the canary's 2 h and the bake: by 8 h site-03
	// has paused and the fleet halted.
	at(env, 8*time.Hour, func() {
		st := status(t, env)
		require.Equal(t, fleet.StateHalted, st.State, "%+v", st.Rollout.Events)
		require.Equal(t, "site-03", st.Rollout.Halt.Site)
		require.Len(t, f.startCalls(), 2, "wave 3 not started")
		wftest.SendUpdate(env, api.UpdateFleetStart, "again", &again, api.FleetStartRequest{TargetVersion: "4.2.0"})
	})
	at(env, 20*time.Hour, func() {
		require.Len(t, f.startCalls(), 2, "still halted twelve hours later: wave 3 waits for the operator")
		f.set("site-03", fleet.Reading{Verdict: fleet.Succeeded}, time.Hour) // continued at the site
		continuedAt = env.Now()
		wftest.SendUpdate(env, api.UpdateContinue, "continue", &cont, nil)
	})
	var last api.FleetStatus
	endWhen(t, env, 40*time.Hour, &last)
	env.ExecuteWorkflow(FleetWorkflow, api.FleetInput{Spec: fleet.Spec{Name: "prod", Clusters: all, Canary: all[:1], WaveSize: 3, BakeMinutes: 60}, Tuning: tuned})
	require.ErrorContains(t, again.Rejected, "is rolling out 4.2.0 (Halted)", "a second start is refused")
	require.NoError(t, cont.Rejected)
	require.Equal(t, fleet.StateCompleted, last.State)
	calls := f.startCalls()
	require.Len(t, calls, 3)
	began, _ := f.startedAt("site-05")
	require.False(t, began.Before(continuedAt), "wave 3 started only after the continue")
	for _, s := range last.Rollout.Sites {
		require.Equal(t, fleet.Succeeded, s.Verdict, s.Cluster)
	}
}
