package actions

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

func TestTroubleshootLadder(t *testing.T) {
	require.Equal(t, []string{"restart", "reimage", "replace"}, TroubleshootLadder(api.ProblemUnresponsive))
	require.Equal(t, []string{"reimage", "replace"}, TroubleshootLadder(api.ProblemOSCorruption))
	require.Equal(t, []string{"replace"}, TroubleshootLadder(api.ProblemHardware))
	require.Equal(t, []string{"reimage", "replace"}, TroubleshootLadder(api.ProblemSecurity))
	require.Nil(t, TroubleshootLadder("flaky"))
}

func trouble(problem string) api.TroubleshootInput {
	return api.TroubleshootInput{Cluster: "site-a", BMM: wftest.Compute, Problem: problem}
}

// The first rung that resolves ends the runbook: one child, the rest skipped.
func TestTroubleshootStopsAtFirstSuccess(t *testing.T) {
	s := wftest.NewActionSite(t)
	env := s.Env(t, api.TroubleshootID("site-a", wftest.Compute))
	env.ExecuteWorkflow(TroubleshootWorkflow, trouble(api.ProblemUnresponsive))
	require.NoError(t, env.GetWorkflowError())
	var st api.TroubleshootStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.TroubleshootResolved, st.Phase, st.Message)
	require.Equal(t, []string{api.StateSucceeded, api.StateSkipped, api.StateSkipped}, stepStates(st))
	require.Equal(t, []string{"action:site-a:rack1-c1:1"}, s.Children, "child ids come from the ledger")
	require.Equal(t, "action:site-a:rack1-c1:1", st.Steps[0].WorkflowID)
	require.Empty(t, s.Reimages)
	require.Empty(t, s.Leases())
}

// A problem that restart and reimage do not fix escalates to replace, which
// waits for confirm-replace (carrying the new hardware facts) before it runs.
func TestTroubleshootEscalatesAndWaitsForConfirmation(t *testing.T) {
	s := wftest.NewActionSite(t)
	s.Broken[wftest.Compute] = true // the node stays NotReady until new hardware is recorded
	env := s.Env(t, api.TroubleshootID("site-a", wftest.Compute))
	var waiting api.TroubleshootStatus
	var childrenBefore []string
	var reimagesBefore int
	env.RegisterDelayedCallback(func() {
		wftest.Query(t, env, &waiting)
		childrenBefore = append([]string(nil), s.Children...)
		reimagesBefore = len(s.Reimages)
		env.SignalWorkflow(api.SignalConfirmReplace, api.ConfirmReplace{ReplaceParams: api.ReplaceParams{StoragePolicy: "Keep"}})
	}, 24*time.Hour)
	var refused api.TroubleshootStatus
	env.RegisterDelayedCallback(func() {
		wftest.Query(t, env, &refused)
		env.SignalWorkflow(api.SignalConfirmReplace, api.ConfirmReplace{ReplaceParams: api.ReplaceParams{SerialNumber: "SN-NEW", StoragePolicy: api.StoragePreserve}})
	}, 25*time.Hour)
	env.ExecuteWorkflow(TroubleshootWorkflow, trouble(api.ProblemUnresponsive))
	require.NoError(t, env.GetWorkflowError())

	require.Equal(t, api.TroubleshootAwaitConfirm, waiting.Phase)
	require.Contains(t, waiting.Message, "starter bmm troubleshoot-confirm --cluster site-a --bmm rack1-c1")
	require.Equal(t, []string{api.StateFailed, api.StateFailed, api.StatePending}, stepStates(waiting))
	require.Len(t, childrenBefore, 2, "no replace before the confirmation")
	require.Equal(t, 1, reimagesBefore)
	require.Contains(t, refused.Message, `confirmation refused: storagePolicy "Keep"`)

	var st api.TroubleshootStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.TroubleshootResolved, st.Phase)
	require.Equal(t, []string{api.StateFailed, api.StateFailed, api.StateSucceeded}, stepStates(st))
	require.Contains(t, st.Steps[0].Error, "not Ready")
	require.Equal(t, []string{"action:site-a:rack1-c1:1", "action:site-a:rack1-c1:2", "action:site-a:rack1-c1:3"}, s.Children)
	require.Len(t, s.KeysetRuns, 1, "the replace reinstalled the server: its keys again")
	require.Equal(t, "SN-NEW", s.LedgerBMM(wftest.Compute).SerialNumber)
	require.Equal(t, model.BMMProvisioned, s.LedgerBMM(wftest.Compute).DetailedStatus)
	require.Empty(t, s.Leases())
}

// An Unhealthy BMM goes straight to replace; a ladder that runs out fails
// with "contact support".
func TestTroubleshootUnhealthyAndUnresolved(t *testing.T) {
	s := wftest.NewActionSite(t)
	b := s.Bmm(wftest.Compute)
	b.DetailedStatusMessage, b.ReadyState = model.UnhealthyMessage, model.ReadyFalse
	s.Fail["Reimage"] = "no bootable disk"
	env := s.Env(t, api.TroubleshootID("site-a", wftest.Compute))
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(api.SignalConfirmReplace, api.ConfirmReplace{}) }, time.Hour)
	env.ExecuteWorkflow(TroubleshootWorkflow, trouble(api.ProblemUnresponsive))
	err := env.GetWorkflowError()
	require.ErrorContains(t, err, "unresponsive on rack1-c1 persists after replace (replace of rack1-c1 failed: reimage: no bootable disk): contact support")
	require.Equal(t, []string{"action:site-a:rack1-c1:1"}, s.Children, "restart and reimage skipped")
	require.Equal(t, model.UnhealthyMessage, s.LedgerBMM(wftest.Compute).DetailedStatusMessage)
	require.Empty(t, s.Leases())
}

// A refused lease stops the runbook with the reason instead of escalating.
func TestTroubleshootStopsOnRefusal(t *testing.T) {
	s := wftest.NewActionSite(t)
	s.HoldLease(t, wftest.Compute, "upgrade:site-a:rack1-c1", "upgrade")
	env := s.Env(t, api.TroubleshootID("site-a", wftest.Compute))
	env.ExecuteWorkflow(TroubleshootWorkflow, trouble(api.ProblemOSCorruption))
	require.ErrorContains(t, env.GetWorkflowError(), "reimage of rack1-c1 refused: bmm rack1-c1 is busy")
	require.Empty(t, s.Children)
}

func stepStates(st api.TroubleshootStatus) []string {
	var out []string
	for _, s := range st.Steps {
		out = append(out, s.State)
	}
	return out
}

// On a Degraded cluster the runbook's steps are refused; forced with a
// reason, each step's lease and action carry it and the runbook runs.
func TestTroubleshootForcedOnDegradedCluster(t *testing.T) {
	s := wftest.NewActionSite(t)
	s.St.Cluster.DetailedStatus, s.St.Cluster.DetailedStatusMessage = model.ClusterDegraded, "storm guard"
	env := s.Env(t, api.TroubleshootID("site-a", wftest.Compute))
	env.ExecuteWorkflow(TroubleshootWorkflow, trouble(api.ProblemUnresponsive))
	require.ErrorContains(t, env.GetWorkflowError(), "is Degraded, not Running")
	require.Empty(t, s.Children)

	in := trouble(api.ProblemUnresponsive)
	in.Force, in.Reason, in.By = true, "INC-7: node wedged", "alice"
	env = s.Env(t, api.TroubleshootID("site-a", wftest.Compute))
	env.ExecuteWorkflow(TroubleshootWorkflow, in)
	require.NoError(t, env.GetWorkflowError())
	var st api.TroubleshootStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.TroubleshootResolved, st.Phase, st.Message)
	require.Len(t, s.St.BreakGlass, 1, "the forced step is on the ledger's record")
	require.Equal(t, "INC-7: node wedged", s.St.BreakGlass[0].Reason)
	require.Empty(t, s.Leases())
}

// --force without a reason is bad input before anything runs.
func TestTroubleshootForceWithoutReasonIsBadInput(t *testing.T) {
	s := wftest.NewActionSite(t)
	in := trouble("nonsense")
	in.Force = true
	env := s.Env(t, api.TroubleshootID("site-a", wftest.Compute))
	env.ExecuteWorkflow(TroubleshootWorkflow, in)
	err := env.GetWorkflowError()
	require.ErrorContains(t, err, `problem "nonsense"`)
	require.ErrorContains(t, err, "reason is empty", "every problem at once")
	require.Empty(t, s.Children)
}
