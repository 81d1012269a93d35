package workflows

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
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
	return api.TroubleshootInput{Cluster: "site-a", BMM: compute, Problem: problem}
}

// The first rung that resolves ends the runbook: one child, the rest skipped.
func TestTroubleshootStopsAtFirstSuccess(t *testing.T) {
	s := newActionSite(t)
	env := s.env(t, api.TroubleshootID("site-a", compute))
	env.ExecuteWorkflow(TroubleshootWorkflow, trouble(api.ProblemUnresponsive))
	require.NoError(t, env.GetWorkflowError())
	var st api.TroubleshootStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.TroubleshootResolved, st.Phase, st.Message)
	require.Equal(t, []string{api.StateSucceeded, api.StateSkipped, api.StateSkipped}, stepStates(st))
	require.Equal(t, []string{"action:site-a:rack1-c1:1"}, s.children, "child ids come from the ledger")
	require.Equal(t, "action:site-a:rack1-c1:1", st.Steps[0].WorkflowID)
	require.Empty(t, s.reimages)
	require.Empty(t, s.leases())
}

// A problem that restart and reimage do not fix escalates to replace, which
// waits for confirm-replace (carrying the new hardware facts) before it runs.
func TestTroubleshootEscalatesAndWaitsForConfirmation(t *testing.T) {
	s := newActionSite(t)
	s.broken[compute] = true // the node stays NotReady until new hardware is recorded
	env := s.env(t, api.TroubleshootID("site-a", compute))
	var waiting api.TroubleshootStatus
	var childrenBefore []string
	var reimagesBefore int
	env.RegisterDelayedCallback(func() {
		query(t, env, &waiting)
		childrenBefore = append([]string(nil), s.children...)
		reimagesBefore = len(s.reimages)
		env.SignalWorkflow(api.SignalConfirmReplace, api.ConfirmReplace{ReplaceParams: api.ReplaceParams{StoragePolicy: "Keep"}})
	}, 24*time.Hour)
	var refused api.TroubleshootStatus
	env.RegisterDelayedCallback(func() {
		query(t, env, &refused)
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
	require.Equal(t, []string{"action:site-a:rack1-c1:1", "action:site-a:rack1-c1:2", "action:site-a:rack1-c1:3"}, s.children)
	require.Equal(t, "SN-NEW", s.ledgerBMM(compute).SerialNumber)
	require.Equal(t, model.BMMProvisioned, s.ledgerBMM(compute).DetailedStatus)
	require.Empty(t, s.leases())
}

// An Unhealthy BMM goes straight to replace; a ladder that runs out fails
// with "contact support".
func TestTroubleshootUnhealthyAndUnresolved(t *testing.T) {
	s := newActionSite(t)
	b := s.bmm(compute)
	b.DetailedStatusMessage, b.ReadyState = model.UnhealthyMessage, model.ReadyFalse
	s.fail["Reimage"] = "no bootable disk"
	env := s.env(t, api.TroubleshootID("site-a", compute))
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(api.SignalConfirmReplace, api.ConfirmReplace{}) }, time.Hour)
	env.ExecuteWorkflow(TroubleshootWorkflow, trouble(api.ProblemUnresponsive))
	err := env.GetWorkflowError()
	require.ErrorContains(t, err, "unresponsive on rack1-c1 persists after replace (replace of rack1-c1 failed: reimage: no bootable disk): contact support")
	require.Equal(t, []string{"action:site-a:rack1-c1:1"}, s.children, "restart and reimage skipped")
	require.Equal(t, model.UnhealthyMessage, s.ledgerBMM(compute).DetailedStatusMessage)
	require.Empty(t, s.leases())
}

// A refused lease stops the runbook with the reason instead of escalating.
func TestTroubleshootStopsOnRefusal(t *testing.T) {
	s := newActionSite(t)
	s.holdLease(t, compute, "upgrade:site-a:rack1-c1", "upgrade")
	env := s.env(t, api.TroubleshootID("site-a", compute))
	env.ExecuteWorkflow(TroubleshootWorkflow, trouble(api.ProblemOSCorruption))
	require.ErrorContains(t, env.GetWorkflowError(), "reimage of rack1-c1 refused: bmm rack1-c1 is busy")
	require.Empty(t, s.children)
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
	s := newActionSite(t)
	s.st.Cluster.DetailedStatus, s.st.Cluster.DetailedStatusMessage = model.ClusterDegraded, "storm guard"
	env := s.env(t, api.TroubleshootID("site-a", compute))
	env.ExecuteWorkflow(TroubleshootWorkflow, trouble(api.ProblemUnresponsive))
	require.ErrorContains(t, env.GetWorkflowError(), "is Degraded, not Running")
	require.Empty(t, s.children)

	in := trouble(api.ProblemUnresponsive)
	in.Force, in.Reason, in.By = true, "INC-7: node wedged", "alice"
	env = s.env(t, api.TroubleshootID("site-a", compute))
	env.ExecuteWorkflow(TroubleshootWorkflow, in)
	require.NoError(t, env.GetWorkflowError())
	var st api.TroubleshootStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.TroubleshootResolved, st.Phase, st.Message)
	require.Len(t, s.st.BreakGlass, 1, "the forced step is on the ledger's record")
	require.Equal(t, "INC-7: node wedged", s.st.BreakGlass[0].Reason)
	require.Empty(t, s.leases())
}

// --force without a reason is bad input before anything runs.
func TestTroubleshootForceWithoutReasonIsBadInput(t *testing.T) {
	s := newActionSite(t)
	in := trouble("nonsense")
	in.Force = true
	env := s.env(t, api.TroubleshootID("site-a", compute))
	env.ExecuteWorkflow(TroubleshootWorkflow, in)
	err := env.GetWorkflowError()
	require.ErrorContains(t, err, `problem "nonsense"`)
	require.ErrorContains(t, err, "reason is empty", "every problem at once")
	require.Empty(t, s.children)
}
