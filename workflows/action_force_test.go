package workflows

import (
	"testing"

	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

func forced(in api.ActionInput, reason string) api.ActionInput {
	in.Force, in.Reason, in.By = true, reason, "alice"
	return in
}

// On a Degraded cluster a restart is refused; forced with a reason it runs.
func TestForcedActionOnDegradedCluster(t *testing.T) {
	s := newActionSite(t)
	s.st.Cluster.DetailedStatus, s.st.Cluster.DetailedStatusMessage = model.ClusterDegraded, "storm guard: 2 control-plane nodes unhealthy"
	_, err := s.runAction(t, act(api.ActionRestart, compute))
	require.ErrorContains(t, err, "is Degraded, not Running")
	requireAppErrorType(t, err, ledger.ErrLeaseRejected)
	require.Empty(t, s.callLog())

	res, err := s.runAction(t, forced(act(api.ActionRestart, compute), "INC-3: node wedged"))
	require.NoError(t, err)
	require.Equal(t, model.PowerOn, res.PowerState)
	require.Equal(t, []string{"Restart " + compute, "WaitNodeReady " + compute}, s.callLog())
	require.Empty(t, s.leases(), "released at the end")
}

// --force never skips the live control-plane gate: a forced restart of a
// KCP is refused while another KCP is unhealthy, before any side effect.
func TestForcedKCPRestartStillGated(t *testing.T) {
	s := newActionSite(t)
	kcp, _ := placedRoles(s)
	s.st.Cluster.DetailedStatus, s.st.Cluster.DetailedStatusMessage = model.ClusterDegraded, "storm guard"
	s.set(kcp[1], func(n *fakeNode) { n.ready = model.ReadyUnknown })
	_, err := s.runAction(t, forced(act(api.ActionRestart, kcp[0]), "INC-4: try anyway"))
	require.ErrorContains(t, err, "restart of "+kcp[0]+" refused")
	require.ErrorContains(t, err, "control-plane member "+kcp[1]+" is unhealthy")
	requireAppErrorType(t, err, ledger.ErrLeaseRejected)
	require.Empty(t, s.callLog(), "no side effect")
	require.Empty(t, s.leases(), "no lease taken")
	require.Equal(t, 1, s.cpObserved, "the gate observed the site")

	// Healthy again: the same forced restart runs through the gate.
	s.set(kcp[1], func(n *fakeNode) { n.ready = model.ReadyTrue })
	_, err = s.runAction(t, forced(act(api.ActionRestart, kcp[0]), "INC-4: try anyway"))
	require.NoError(t, err)
	require.Equal(t, 3, s.cpObserved, "observed before and after the lease")
}

// --force without a reason is refused as bad input before anything runs.
func TestForceWithoutReasonIsBadInput(t *testing.T) {
	s := newActionSite(t)
	in := act(api.ActionRestart, compute)
	in.Force = true
	_, err := s.runAction(t, in)
	require.ErrorContains(t, err, "reason is empty")
	requireAppErrorType(t, err, api.ErrInvalidInput)
	require.Empty(t, s.callLog())
	require.Zero(t, s.cpObserved)
}
