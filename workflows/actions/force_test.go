package actions

import (
	"testing"

	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

func forced(in api.ActionInput, reason string) api.ActionInput {
	in.Force, in.Reason, in.By = true, reason, "alice"
	return in
}

// On a Degraded cluster a restart is refused; forced with a reason it runs.
func TestForcedActionOnDegradedCluster(t *testing.T) {
	s := wftest.NewActionSite(t)
	s.St.Cluster.DetailedStatus, s.St.Cluster.DetailedStatusMessage = model.ClusterDegraded, "storm guard: 2 control-plane nodes unhealthy"
	_, err := s.RunAction(t, wftest.Act(api.ActionRestart, wftest.Compute))
	require.ErrorContains(t, err, "is Degraded, not Running")
	requireAppErrorType(t, err, ledger.ErrLeaseRejected)
	require.Empty(t, s.CallLog())

	res, err := s.RunAction(t, forced(wftest.Act(api.ActionRestart, wftest.Compute), "INC-3: node wedged"))
	require.NoError(t, err)
	require.Equal(t, model.PowerOn, res.PowerState)
	require.Equal(t, []string{"Restart " + wftest.Compute, "WaitNodeReady " + wftest.Compute}, s.CallLog())
	require.Empty(t, s.Leases(), "released at the end")
}

// --force never skips the live control-plane gate: a forced restart of a
// KCP is refused while another KCP is unhealthy, before any side effect.
func TestForcedKCPRestartStillGated(t *testing.T) {
	s := wftest.NewActionSite(t)
	kcp, _ := wftest.PlacedRoles(s)
	s.St.Cluster.DetailedStatus, s.St.Cluster.DetailedStatusMessage = model.ClusterDegraded, "storm guard"
	s.Set(kcp[1], func(n *wftest.FakeNode) { n.Ready = model.ReadyUnknown })
	_, err := s.RunAction(t, forced(wftest.Act(api.ActionRestart, kcp[0]), "INC-4: try anyway"))
	require.ErrorContains(t, err, "restart of "+kcp[0]+" refused")
	require.ErrorContains(t, err, "control-plane member "+kcp[1]+" is unhealthy")
	requireAppErrorType(t, err, ledger.ErrLeaseRejected)
	require.Empty(t, s.CallLog(), "no side effect")
	require.Empty(t, s.Leases(), "no lease taken")
	require.Equal(t, 1, s.CPObserved, "the gate observed the site")

	// Healthy again: the same forced restart runs through the gate.
	s.Set(kcp[1], func(n *wftest.FakeNode) { n.Ready = model.ReadyTrue })
	_, err = s.RunAction(t, forced(wftest.Act(api.ActionRestart, kcp[0]), "INC-4: try anyway"))
	require.NoError(t, err)
	require.Equal(t, 3, s.CPObserved, "observed before and after the lease")
}

// --force without a reason is refused as bad input before anything runs.
func TestForceWithoutReasonIsBadInput(t *testing.T) {
	s := wftest.NewActionSite(t)
	in := wftest.Act(api.ActionRestart, wftest.Compute)
	in.Force = true
	_, err := s.RunAction(t, in)
	require.ErrorContains(t, err, "reason is empty")
	requireAppErrorType(t, err, api.ErrInvalidInput)
	require.Empty(t, s.CallLog())
	require.Zero(t, s.CPObserved)
}
