package rollout

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/fleet"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// Pause --sites also pauses the running sites' upgrades (before their
// next group or rack); they wait, and the next wave does not start. The
// fleet's continue continues exactly the sites it paused, and goes on.
func TestFleetPauseSitesAndContinueThem(t *testing.T) {
	env := wftest.QuietEnv()
	f := newFakeFleet(env)
	var pause, cont wftest.UpdateResult
	startRollout(t, env)
	at(env, time.Hour, func() {
		wftest.SendUpdate(env, api.UpdateFleetPause, "pause", &pause, api.FleetPauseRequest{Sites: true, By: "alice"})
	})
	at(env, 4*time.Hour, func() {
		st := status(t, env)
		require.Equal(t, fleet.StatePaused, st.State)
		require.Equal(t, []string{"site-01"}, st.Rollout.PausedSites)
		require.Equal(t, fleet.Waiting, st.Rollout.Sites[0].Verdict, "the canary waits at its pause past its two hours")
		require.Len(t, f.startCalls(), 1, "wave 2 not started")
		wftest.SendUpdate(env, api.UpdateContinue, "continue", &cont, nil)
	})
	last := rollThree(t, env)
	require.NoError(t, pause.Rejected)
	require.NoError(t, cont.Rejected)
	require.Equal(t, [][]string{{"site-01"}}, f.pauses, "only the running site was paused")
	require.Equal(t, [][]string{{"site-01"}}, f.continues, "the fleet continued what it paused")
	require.Equal(t, fleet.StateCompleted, last.State)
	require.Empty(t, last.Rollout.PausedSites)
	for _, s := range last.Rollout.Sites {
		require.Equal(t, fleet.Succeeded, s.Verdict, s.Cluster)
	}
}

// A continue right after pause --sites (in the same moment) leaves no
// site paused: the sites that took the pause are continued at once.
func TestFleetContinueRightAfterPauseSites(t *testing.T) {
	env := wftest.QuietEnv()
	f := newFakeFleet(env)
	var pause, cont wftest.UpdateResult
	startRollout(t, env)
	at(env, time.Hour, func() {
		wftest.SendUpdate(env, api.UpdateFleetPause, "pause", &pause, api.FleetPauseRequest{Sites: true})
		wftest.SendUpdate(env, api.UpdateContinue, "continue", &cont, nil)
	})
	last := rollThree(t, env)
	require.NoError(t, pause.Rejected)
	require.NoError(t, cont.Rejected)
	require.Equal(t, [][]string{{"site-01"}}, f.pauses)
	require.Equal(t, [][]string{{"site-01"}}, f.continues, "continued at once: it was no longer paused")
	require.Equal(t, fleet.StateCompleted, last.State)
	require.Empty(t, last.Rollout.PausedSites)
}

// Cancelled without --sites, the fleet lets the sites it paused go on,
// as it lets the running ones.
func TestFleetCancelContinuesTheSitesItPaused(t *testing.T) {
	env := wftest.QuietEnv()
	f := newFakeFleet(env)
	var pause, cancel wftest.UpdateResult
	startRollout(t, env)
	at(env, time.Hour, func() {
		wftest.SendUpdate(env, api.UpdateFleetPause, "pause", &pause, api.FleetPauseRequest{Sites: true})
	})
	at(env, 2*time.Hour, func() {
		wftest.SendUpdate(env, api.UpdateCancel, "cancel", &cancel, api.FleetCancelRequest{})
	})
	last := rollThree(t, env)
	require.NoError(t, cancel.Rejected)
	require.Equal(t, [][]string{{"site-01"}}, f.continues)
	require.Empty(t, f.cancelled, "without --sites no site's upgrade is cancelled")
	require.Equal(t, fleet.StateCancelled, last.State)
	require.Empty(t, last.Rollout.PausedSites)
}
