package upgrade

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// moveRun runs the upgrade until it moves: another build becomes current
// when the first server whose name starts with prefix starts its reimage
// ("rack1-c": rack1's compute servers). It returns the next run's input;
// the cluster's status is then status (UpdatePaused for a move at a
// pause).
func moveRun(t *testing.T, f *wftest.FakeSite, env *testsuite.TestWorkflowEnvironment, in api.UpgradeInput, prefix, status string) api.UpgradeInput {
	t.Helper()
	f.OnStep = func(activity, who string) error {
		if activity == "Reimage" && strings.HasPrefix(who, prefix) {
			env.SetTargetWorkerDeploymentVersionChanged(true)
		}
		return nil
	}
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, in)
	f.OnStep = nil
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "want a move, got %v", env.GetWorkflowError())
	require.Equal(t, workflow.ContinueAsNewVersioningBehavior(workflow.ContinueAsNewVersioningBehaviorAutoUpgrade), can.InitialVersioningBehavior,
		"the next run asks for the current build")
	var next api.UpgradeInput
	require.NoError(t, wftest.ConverterFor().FromPayloads(can.Input, &next))
	require.NotNil(t, next.Carry)
	require.Equal(t, status, f.St.Cluster.DetailedStatus, "the cluster's status when the run moved")
	return next
}

// rackOf is the rack of each server the fake reimaged since from.
func reimagedRacks(f *wftest.FakeSite, from int) []string {
	var out []string
	for _, b := range f.Reimages[from:] {
		if r := f.Bmm(b).Rack; !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// Another build becomes current while rack1 runs: the run does not move
// mid-rack; it moves at its first compute pause (after rack1,
// PauseAfterRack, no wait) with its status. The next run waits at that
// same pause, and once continued finishes the upgrade as an uninterrupted
// run would: racks 2 to 4 reimaged, nothing reimaged twice, every server
// at the target.
func TestUpgradeMovesAtAComputePauseAndGoesOn(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	in := wftest.UpgradeInput(model.UpdateStrategy{StrategyType: model.StrategyPauseAfterRack, WaitTimeMinutes: wftest.Intp(0)})
	next := moveRun(t, f, env, in, "rack1-c", model.ClusterUpdatePaused)
	c := next.Carry
	require.Equal(t, "rack1", c.PausedAt)
	require.Contains(t, c.PauseMessage, "paused after the rack: continue-update to start rack rack2")
	require.Equal(t, 1, c.Moves)
	require.Equal(t, api.StateSucceeded, c.Status.ControlPlane.State)
	require.Equal(t, api.StateSucceeded, c.Status.Racks[0].State)
	require.Equal(t, api.StatePending, c.Status.Racks[1].State)
	moved := len(f.Reimages)

	env2 := f.NewEnv()
	var paused []string
	wftest.EachPause(t, env2, 400, func(st api.UpgradeStatus) {
		paused = append(paused, st.DetailedStatusMessage)
		wftest.SendUpdate(env2, api.UpdateContinue, "c"+st.DetailedStatusMessage, &wftest.UpdateResult{}, nil)
	})
	env2.ExecuteWorkflow(RuntimeUpgradeWorkflow, next)
	require.NoError(t, env2.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env2.GetWorkflowResult(&st))
	require.Equal(t, api.PhaseDone, st.Phase)
	require.Equal(t, model.ClusterRunning, f.St.Cluster.DetailedStatus, f.St.Cluster.DetailedStatusMessage)
	require.Equal(t, "4.2.0", f.St.Cluster.RuntimeVersion)
	require.Len(t, paused, 3, "rack1's pause again, then after racks 2 and 3: %v", paused)
	require.Equal(t, c.PauseMessage, paused[0])
	require.Equal(t, []string{"rack2", "rack3", "rack4"}, reimagedRacks(f, moved), "the moved run reimages only what was left")
	require.Equal(t, c.Status.StartedAt, st.StartedAt, "one upgrade, started once")
	for _, r := range st.Racks {
		require.Equal(t, api.StateSucceeded, r.State, r.Name)
	}
	for _, b := range f.St.Cluster.BMMs {
		if !b.HasRole(model.RoleKCPSpare) {
			require.Equal(t, "4.2.0", b.RuntimeVersion, b.Name)
		}
	}
}

// A rack that missed its threshold pauses (settle): another build current
// while it ran, the run moves at that pause, and the next run waits there, counts the rack failed once
// continued, and goes on with the next rack.
func TestUpgradeMovesAtAMissedThreshold(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	for _, b := range []string{"rack2-c1", "rack2-c2"} {
		f.Failing[b] = "reimage failed: no bootable OS"
	}
	next := moveRun(t, f, env, wftest.UpgradeInput(model.UpdateStrategy{WaitTimeMinutes: wftest.Intp(0)}), "rack2-c", model.ClusterUpdatePaused)
	require.Equal(t, "rack2", next.Carry.PausedAt)
	require.True(t, strings.Contains(next.Carry.PauseMessage, "rack rack2 missed its threshold"), next.Carry.PauseMessage)
	require.Equal(t, api.StatePaused, next.Carry.Status.Racks[1].State)
	moved := len(f.Reimages)

	env2 := f.NewEnv()
	wftest.EachPause(t, env2, 60, func(st api.UpgradeStatus) {
		wftest.SendUpdate(env2, api.UpdateContinue, "c", &wftest.UpdateResult{}, nil)
	})
	env2.ExecuteWorkflow(RuntimeUpgradeWorkflow, next)
	require.NoError(t, env2.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env2.GetWorkflowResult(&st))
	require.Equal(t, api.StateFailed, st.Racks[1].State, "continued past its threshold: failed")
	require.Equal(t, api.StateSucceeded, st.Racks[2].State)
	require.Equal(t, []string{"rack3", "rack4"}, reimagedRacks(f, moved))
}

// Without another build the run never asks: a paused upgrade stays.
func TestUpgradeWithoutANewBuildDoesNotMove(t *testing.T) {
	_, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	var cancel wftest.UpdateResult
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(api.SignalSelfUpgrade, nil) }, 2*time.Hour)
	env.RegisterDelayedCallback(func() { wftest.SendUpdate(env, api.UpdateCancel, "c", &cancel, nil) }, 3*time.Hour)
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{StrategyType: model.StrategyPauseAfterRack}))
	require.NoError(t, env.GetWorkflowError(), "a wake with no new build changes nothing")
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.StateCancelled, st.DetailedStatus)
}
