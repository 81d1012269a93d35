package upgrade

import (
	"errors"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"
)

// An ask not yet taken moves with the run (here during the wait between
// racks) and is taken by the next run before rack2; the asker's withdraw
// (a fleet's continue) ends that pause, and another reason's is refused.
func TestOperatorAskMovesWithTheRunAndIsWithdrawnByItsAsker(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	f.Delay["Reimage"] = 5 * time.Minute
	var asked wftest.UpdateResult
	askPauseWhen(t, env, "fleet weekly paused", &asked, func(st api.UpgradeStatus) bool {
		return st.Phase == api.PhaseCompute && len(st.Racks[0].Running()) > 0
	})
	// rack1 done: the run waits before rack2.
	onceWhen(env, 2, func(st api.UpgradeStatus) bool { return asked.Done && st.Racks[0].State == api.StateSucceeded },
		func() { env.SetTargetWorkerDeploymentVersionChanged(true) })
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{MaxUnavailable: 2, WaitTimeMinutes: wftest.Intp(30)}))
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "want a move, got %v", env.GetWorkflowError())
	var next api.UpgradeInput
	require.NoError(t, wftest.ConverterFor().FromPayloads(can.Input, &next))
	c := next.Carry
	require.Equal(t, "rack2", c.WaitBefore, "moved during the wait")
	require.Equal(t, "fleet weekly paused", c.Asked, "the ask moved with it")
	require.Equal(t, selfupgrade.FormatOperatorPause, c.MinReader)

	env2 := f.NewEnv()
	var other, mine wftest.UpdateResult
	var paused []string
	wftest.EachPause(t, env2, 400, func(st api.UpgradeStatus) {
		if len(paused) == 0 {
			wftest.SendUpdate(env2, api.UpdatePause, "other", &other, api.PauseRequest{Reason: "someone else", Withdraw: true})
			wftest.SendUpdate(env2, api.UpdatePause, "mine", &mine, api.PauseRequest{Reason: "fleet weekly paused", Withdraw: true})
		}
		paused = append(paused, st.DetailedStatusMessage)
	})
	env2.ExecuteWorkflow(RuntimeUpgradeWorkflow, next)
	require.NoError(t, env2.GetWorkflowError())
	require.NotEmpty(t, paused)
	require.Contains(t, paused[0], "operator's word before rack rack2 starts (fleet weekly paused)")
	require.ErrorContains(t, other.Rejected, `no pause asked as "someone else" to withdraw`)
	require.NoError(t, mine.Rejected)
	require.Equal(t, []string{"rack1", "rack2", "rack3", "rack4"}, computeRacks(f))
}

// The capacity guard's hold is inside a rack (between its batches): a new
// build woken there does not move the run — a moved run took the rack's
// Paused state for its threshold's and skipped the rack. Continued, the
// rack is drained and upgraded on this build.
func TestCapacityHoldIsNoMovePoint(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("two-rack.yaml"))
	f.NoRoom[f.Bmm("rack2-c1").NodeName] = true
	var cont wftest.UpdateResult
	var held, woken api.UpgradeStatus
	wftest.EachPause(t, env, 12*60, func(st api.UpgradeStatus) {
		if held.DetailedStatus == "" {
			held = st
			env.SetTargetWorkerDeploymentVersionChanged(true)
			env.SignalWorkflow(api.SignalSelfUpgrade, nil) // the rollout's wake
			env.RegisterDelayedCallback(func() {
				wftest.Query(t, env, &woken)
				wftest.SendUpdate(env, api.UpdateContinue, "go-on", &cont, nil)
			}, time.Minute)
		}
	})
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{WaitTimeMinutes: wftest.Intp(0), CapacityPolicy: model.CapacityPause}))
	require.NoError(t, env.GetWorkflowError(), "no move at the hold")
	require.Contains(t, held.DetailedStatusMessage, "not enough room to drain")
	require.Contains(t, woken.NextMove, "once this pause is continued", "the status promises no move at the hold")
	require.NoError(t, cont.Rejected)
	require.Positive(t, len(reimagesIn(f, "rack2")), "rack2 drained and upgraded")
}

// A continued pause leaves no trace that keeps the run from moving: a
// new build met later (rack3 running) moves it before rack4.
func TestAContinuedPauseDoesNotStopLaterMoves(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	f.Delay["Reimage"] = 5 * time.Minute
	var asked wftest.UpdateResult
	askPauseWhen(t, env, "freeze", &asked, func(st api.UpgradeStatus) bool {
		return st.Phase == api.PhaseCompute && len(st.Racks[0].Running()) > 0
	})
	wftest.EachPause(t, env, 400, func(st api.UpgradeStatus) {
		wftest.SendUpdate(env, api.UpdateContinue, "c"+st.DetailedStatusMessage, &wftest.UpdateResult{}, nil)
	})
	onceWhen(env, 1, func(st api.UpgradeStatus) bool { return len(st.Racks[2].Running()) > 0 },
		func() { env.SetTargetWorkerDeploymentVersionChanged(true) })
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{MaxUnavailable: 2, WaitTimeMinutes: wftest.Intp(0)}))
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "want a move before rack4, got %v", env.GetWorkflowError())
	var next api.UpgradeInput
	require.NoError(t, wftest.ConverterFor().FromPayloads(can.Input, &next))
	require.Equal(t, api.StateSucceeded, next.Carry.Status.Racks[2].State)
	require.Equal(t, api.StatePending, next.Carry.Status.Racks[3].State)
	require.Equal(t, []string{"rack1", "rack2", "rack3"}, computeRacks(f))
}
