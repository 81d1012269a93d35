package upgrade

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// computeRacks is the rack of each compute server reimaged so far, in
// order, once each.
func computeRacks(f *wftest.FakeSite) []string {
	var out []string
	for _, b := range f.Reimages {
		if r := f.Bmm(b).Rack; strings.Contains(b, "-c") && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// onceWhen calls do once, at the first of every other simulated minute
// from first, up to 400, at which ready(status) holds. (The test
// environment holds 1,000 callbacks.)
func onceWhen(env *testsuite.TestWorkflowEnvironment, first int, ready func(api.UpgradeStatus) bool, do func()) *bool {
	done := new(bool)
	for m := first; m <= 400; m += 2 {
		env.RegisterDelayedCallback(func() {
			var st api.UpgradeStatus
			if *done {
				return
			}
			if v, err := env.QueryWorkflow(api.QueryStatus); err != nil || v.Get(&st) != nil || !ready(st) {
				return
			}
			*done = true
			do()
		}, time.Duration(m)*time.Minute)
	}
	return done
}

// askPauseWhen sends pause-update (reason why) once ready(status) holds
// (onceWhen); asked gets the answer.
func askPauseWhen(t *testing.T, env *testsuite.TestWorkflowEnvironment, why string, asked *wftest.UpdateResult, ready func(api.UpgradeStatus) bool) *bool {
	return onceWhen(env, 2, ready, func() {
		wftest.SendUpdate(env, api.UpdatePause, "pause-"+why, asked, api.PauseRequest{Reason: why})
	})
}

// Asked while rack1 runs (strategy Rack: no pause of its own), the
// upgrade finishes rack1 and pauses before rack2 starts, with the reason;
// a second ask is refused; continue goes on to the end, once.
func TestOperatorPausesBeforeTheNextRack(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	f.Delay["Reimage"] = 5 * time.Minute
	var asked, again wftest.UpdateResult
	sent := askPauseWhen(t, env, "change freeze", &asked, func(st api.UpgradeStatus) bool {
		return st.Phase == api.PhaseCompute && len(st.Racks[0].Running()) > 0
	})
	var pauses []string
	var atPause []string
	wftest.EachPause(t, env, 400, func(st api.UpgradeStatus) {
		if len(pauses) == 0 {
			wftest.SendUpdate(env, api.UpdatePause, "again", &again, api.PauseRequest{})
			atPause = computeRacks(f)
		}
		pauses = append(pauses, st.DetailedStatusMessage)
		wftest.SendUpdate(env, api.UpdateContinue, fmt.Sprint("c", len(pauses)), &wftest.UpdateResult{}, nil)
	})
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{MaxUnavailable: 2, WaitTimeMinutes: wftest.Intp(0)}))
	require.NoError(t, env.GetWorkflowError())
	require.True(t, *sent, "rack1 was seen running")
	require.NoError(t, asked.Rejected)
	require.Equal(t, "pausing before rack rack2 starts (rack rack1 in flight finishes first)", asked.Value)
	require.Len(t, pauses, 1, "one pause, one continue: %v", pauses)
	require.Equal(t, "paused on the operator's word before rack rack2 starts (change freeze): continue-update to start it, cancel-update to stop", pauses[0])
	require.Equal(t, []string{"rack1"}, atPause, "rack1 finished, rack2 not started")
	require.ErrorContains(t, again.Rejected, "is already paused")

	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.PhaseDone, st.Phase)
	require.Equal(t, []string{"rack1", "rack2", "rack3", "rack4"}, computeRacks(f))
	require.Equal(t, "4.2.0", f.St.Cluster.RuntimeVersion)
}

// Asked during the control plane, the pause comes before the first
// management group; on the last rack nothing starts after it, so the ask
// is refused and the upgrade ends as it would.
func TestOperatorPauseAtTheBoundaries(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	f.Delay["Reimage"] = 5 * time.Minute
	var early, late wftest.UpdateResult
	askPauseWhen(t, env, "early", &early, func(st api.UpgradeStatus) bool { return st.Phase == api.PhaseControlPlane })
	askPauseWhen(t, env, "late", &late, func(st api.UpgradeStatus) bool {
		return st.Phase == api.PhaseCompute && len(st.Racks[3].Running()) > 0
	})
	var pauses []string
	wftest.EachPause(t, env, 400, func(st api.UpgradeStatus) {
		pauses = append(pauses, st.DetailedStatusMessage)
		wftest.SendUpdate(env, api.UpdateContinue, fmt.Sprint("c", len(pauses)), &wftest.UpdateResult{}, nil)
	})
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{MaxUnavailable: 2, WaitTimeMinutes: wftest.Intp(0)}))
	require.NoError(t, env.GetWorkflowError())
	require.NoError(t, early.Rejected)
	require.Len(t, pauses, 1, "%v", pauses)
	require.Contains(t, pauses[0], "before management group a starts (early)")
	require.ErrorContains(t, late.Rejected, "is on its last rack (rack rack4): nothing starts after it to pause before")
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.PhaseDone, st.Phase)
}

// Another build current while the run waits on the operator's word: it
// moves at that pause, its carry needs a build that knows the word (an
// older one would go on), and the next run waits at the same pause.
func TestOperatorPauseMovesAndHolds(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	f.Delay["Reimage"] = 5 * time.Minute
	var asked wftest.UpdateResult
	askPauseWhen(t, env, "freeze", &asked, func(st api.UpgradeStatus) bool {
		return st.Phase == api.PhaseCompute && len(st.Racks[0].Running()) > 0
	})
	wftest.EachPause(t, env, 400, func(api.UpgradeStatus) { env.SetTargetWorkerDeploymentVersionChanged(true) })
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{MaxUnavailable: 2, WaitTimeMinutes: wftest.Intp(0)}))
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "want a move, got %v", env.GetWorkflowError())
	var next api.UpgradeInput
	require.NoError(t, wftest.ConverterFor().FromPayloads(can.Input, &next))
	c := next.Carry
	require.Equal(t, "rack1", c.PausedAt)
	require.Contains(t, c.PauseMessage, "operator's word before rack rack2 starts (freeze)")
	require.Equal(t, selfupgrade.FormatOperatorPause, c.MinReader)
	require.Equal(t, "freeze", c.HeldFor, "the asker's reason, for its withdraw")
	moved := len(computeRacks(f))

	env2 := f.NewEnv()
	var paused []string
	wftest.EachPause(t, env2, 400, func(st api.UpgradeStatus) {
		paused = append(paused, st.DetailedStatusMessage)
		wftest.SendUpdate(env2, api.UpdateContinue, "c"+st.DetailedStatusMessage, &wftest.UpdateResult{}, nil)
	})
	env2.ExecuteWorkflow(RuntimeUpgradeWorkflow, next)
	require.NoError(t, env2.GetWorkflowError())
	require.Equal(t, []string{c.PauseMessage}, paused, "the same pause, once")
	require.Equal(t, 1, moved)
	require.Equal(t, []string{"rack1", "rack2", "rack3", "rack4"}, computeRacks(f))
}

// A continue before the asked pause is taken withdraws it: the upgrade
// goes on without pausing.
func TestOperatorPauseWithdrawnByAnEarlyContinue(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	f.Delay["Reimage"] = 5 * time.Minute
	var asked, early wftest.UpdateResult
	sent := askPauseWhen(t, env, "freeze", &asked, func(st api.UpgradeStatus) bool {
		return st.Phase == api.PhaseCompute && len(st.Racks[0].Running()) > 0
	})
	for m := 3; m <= 400; m += 2 {
		env.RegisterDelayedCallback(func() {
			if *sent && !early.Done && asked.Done {
				wftest.SendUpdate(env, api.UpdateContinue, "early", &early, nil)
			}
		}, time.Duration(m)*time.Minute)
	}
	var pauses []string
	wftest.EachPause(t, env, 400, func(st api.UpgradeStatus) {
		pauses = append(pauses, st.DetailedStatusMessage)
		wftest.SendUpdate(env, api.UpdateContinue, fmt.Sprint("c", len(pauses)), &wftest.UpdateResult{}, nil)
	})
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{MaxUnavailable: 2, WaitTimeMinutes: wftest.Intp(0)}))
	require.NoError(t, env.GetWorkflowError())
	require.NoError(t, asked.Rejected)
	require.NoError(t, early.Rejected)
	require.Equal(t, "going on: the pause asked before rack rack2 (freeze) is withdrawn", early.Value)
	require.Empty(t, pauses, "no pause was taken")
	require.Equal(t, []string{"rack1", "rack2", "rack3", "rack4"}, computeRacks(f))
}
