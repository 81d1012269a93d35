package upgrade

import (
	"fmt"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// runMoved runs the run a move continued as, with no pause to answer,
// to its end: done.
func runMoved(t *testing.T, f *wftest.FakeSite, next api.UpgradeInput) api.UpgradeStatus {
	t.Helper()
	env := f.NewEnv()
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, next)
	require.NoError(t, env.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.PhaseDone, st.Phase)
	return st
}

// groupMember is a BMM of management group g.
func groupMember(f *wftest.FakeSite, g string) string {
	for _, b := range f.St.Cluster.BMMs {
		if b.ManagementGroup == g {
			return b.Name
		}
	}
	return ""
}

// A default upgrade (strategy Rack, no pause) with another build current
// while its last management group runs: it moves neither there nor
// mid-group, but before the first compute rack starts, without a pause;
// the next run upgrades every rack and nothing twice.
func TestUpgradeMovesBeforeAComputeRackWithoutAPause(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	next := moveRun(t, f, env, wftest.UpgradeInput(model.UpdateStrategy{WaitTimeMinutes: wftest.Intp(0)}), groupMember(f, "b"), model.ClusterUpdating)
	c := next.Carry
	require.Empty(t, c.PausedAt)
	require.Equal(t, api.PhaseCompute, c.Status.Phase)
	require.Equal(t, selfupgrade.Written("").MinReader, c.MinReader, "any build reads a move between racks")
	require.Equal(t, api.StateSucceeded, c.Status.ControlPlane.State)
	for _, r := range c.Status.Racks {
		require.Equal(t, api.StatePending, r.State, r.Name)
	}
	moved := len(f.Reimages)

	st := runMoved(t, f, next)
	require.Equal(t, []string{"rack1", "rack2", "rack3", "rack4"}, reimagedRacks(f, moved))
	require.Equal(t, c.Status.StartedAt, st.StartedAt, "one upgrade, started once")
}

// Another build current while rack1 runs, the strategy waiting 15 minutes
// between racks and pausing after each: the run moves during the wait (at
// its start: the new build was current already);
// the next run waits what is left of it, then pauses after rack1 as the
// strategy says, and once continued goes on with rack2.
func TestUpgradeMovesDuringTheWaitBetweenRacks(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	in := wftest.UpgradeInput(model.UpdateStrategy{StrategyType: model.StrategyPauseAfterRack, WaitTimeMinutes: wftest.Intp(15)})
	next := moveRun(t, f, env, in, "rack1-c", model.ClusterUpdating)
	c := next.Carry
	require.Equal(t, "rack2", c.WaitBefore)
	require.NotNil(t, c.WaitUntil)
	left := c.WaitUntil.Sub(env.Now())
	require.True(t, left > 0 && left <= 15*time.Minute, "moved during the wait: %v left", left)
	require.Equal(t, 2, c.MinReader, "a build that would skip the wait and the pause refuses this carry")
	require.Equal(t, api.StateSucceeded, c.Status.Racks[0].State)
	moved := len(f.Reimages)

	env2 := f.NewEnv()
	env2.SetStartTime(env.Now())
	var pausedAt []time.Time
	var paused []string
	wftest.EachPause(t, env2, 400, func(st api.UpgradeStatus) {
		pausedAt, paused = append(pausedAt, env2.Now()), append(paused, st.DetailedStatusMessage)
		wftest.SendUpdate(env2, api.UpdateContinue, "c"+st.DetailedStatusMessage, &wftest.UpdateResult{}, nil)
	})
	env2.ExecuteWorkflow(RuntimeUpgradeWorkflow, next)
	require.NoError(t, env2.GetWorkflowError())
	require.NotEmpty(t, paused)
	require.Contains(t, paused[0], "continue-update to start rack rack2", "the pause after rack1, after the wait")
	require.False(t, pausedAt[0].Before(*c.WaitUntil), "paused at %s, before the wait's end %s", pausedAt[0], *c.WaitUntil)
	require.Equal(t, []string{"rack2", "rack3", "rack4"}, reimagedRacks(f, moved))
}

// A continue sent the moment a run moved at a pause starts, before it is
// back at that pause, is taken: the pause ends at once.
func TestContinueRightAfterAMoveIsTaken(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	in := wftest.UpgradeInput(model.UpdateStrategy{StrategyType: model.StrategyPauseAfterRack, WaitTimeMinutes: wftest.Intp(0)})
	next := moveRun(t, f, env, in, "rack1-c", model.ClusterUpdatePaused)
	require.Equal(t, "rack1", next.Carry.PausedAt)

	env2 := f.NewEnv()
	var early wftest.UpdateResult
	env2.RegisterDelayedCallback(func() { wftest.SendUpdate(env2, api.UpdateContinue, "early", &early, nil) }, 0)
	var again []string
	wftest.EachPause(t, env2, 400, func(st api.UpgradeStatus) {
		again = append(again, st.DetailedStatusMessage)
		wftest.SendUpdate(env2, api.UpdateContinue, "c"+st.DetailedStatusMessage, &wftest.UpdateResult{}, nil)
	})
	env2.ExecuteWorkflow(RuntimeUpgradeWorkflow, next)
	require.NoError(t, env2.GetWorkflowError())
	require.True(t, early.Done, "the early continue was answered")
	require.NoError(t, early.Rejected, "a continue while the moved run restores its pause is taken")
	require.NoError(t, early.Err)
	for _, m := range again {
		require.NotContains(t, m, "start rack rack2", "the pause the early continue ended came back: %v", again)
	}
}

// A carry that needs a newer build than this one fails the workflow task
// (a panic the worker retries) naming both builds: the run is not started
// on what it would misread.
func TestNewerCarryIsRefused(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	in := wftest.UpgradeInput(model.UpdateStrategy{})
	newer := selfupgrade.CarryFormat + 1
	in.Carry = &api.UpgradeCarry{CarryHeader: selfupgrade.CarryHeader{Schema: newer, MinReader: newer, Writer: "rackroll-9"}, PausedAt: "rack1"}
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, in)
	err := env.GetWorkflowError()
	require.Error(t, err)
	require.Contains(t, err.Error(), fmt.Sprintf("written by build rackroll-9 (schema %d) and needs a build that reads carry format %d", newer, newer))
	require.Empty(t, f.Reimages)
}

// Another build current while management group a runs: the run moves
// before group b starts; the next run upgrades group b, then every
// compute rack, and nothing twice.
func TestUpgradeMovesBetweenManagementGroups(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	next := moveRun(t, f, env, wftest.UpgradeInput(model.UpdateStrategy{WaitTimeMinutes: wftest.Intp(0)}), groupMember(f, "a"), model.ClusterUpdating)
	c := next.Carry
	require.Equal(t, api.PhaseManagement, c.Status.Phase)
	require.Equal(t, api.StateSucceeded, c.Status.ManagementGroups[0].State)
	require.Equal(t, api.StatePending, c.Status.ManagementGroups[1].State)
	moved := len(f.Reimages)

	st := runMoved(t, f, next)
	again := map[string]bool{}
	for _, b := range f.Reimages[:moved] {
		again[b] = true
	}
	for _, b := range f.Reimages[moved:] {
		require.False(t, again[b], "%s reimaged twice", b)
		if bm := f.Bmm(b); bm.ManagementGroup != "" {
			require.Equal(t, "b", bm.ManagementGroup, "%s: only group b is left after the move", b)
		}
	}
	for _, g := range st.ManagementGroups {
		require.Equal(t, api.StateSucceeded, g.State, g.Name)
	}
}
