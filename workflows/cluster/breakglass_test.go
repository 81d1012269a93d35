package cluster

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
)

// On a Degraded ledger: an unforced action is refused, a forced one without
// a reason is refused before anything changes, a forced one with a reason is
// granted and recorded; resume returns the cluster to Running, says what was
// wrong and is recorded; bad resume input changes nothing.
func TestClusterBreakGlassForceAndResume(t *testing.T) {
	env := wftest.NewEnv()
	in := fourRackInput(t)
	in.LeaseSweep = time.Hour
	storm := "storm guard: 2 control-plane nodes unhealthy (rack1-mgmt1, rack2-mgmt1)"
	var status, plain, noReason, forced, badResume, resumed, again wftest.UpdateResult
	var mid api.ClusterState
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateClusterStatus, "s", &status, api.ClusterStatusPatch{DetailedStatus: model.ClusterDegraded, DetailedStatusMessage: storm})
		wftest.SendUpdate(env, api.UpdateAcquireLease, "u1", &plain, lease.Request{BMM: "rack1-c1", Operation: "restart"})
		wftest.SendUpdate(env, api.UpdateAcquireLease, "u2", &noReason, lease.Request{BMM: "rack1-c1", Operation: "restart", Force: true})
		wftest.SendUpdate(env, api.UpdateAcquireLease, "u3", &forced, lease.Request{BMM: "rack1-c1", Operation: "restart", Force: true, Reason: "INC-1: node wedged", By: "alice"})
		wftest.SendUpdate(env, api.UpdateResume, "r1", &badResume, api.ResumeRequest{})
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		mid = queryState(t, env)
		wftest.SendUpdate(env, api.UpdateResume, "r2", &resumed, api.ResumeRequest{Reason: "INC-1: PSUs back", By: "bob"})
		wftest.SendUpdate(env, api.UpdateResume, "r3", &again, api.ResumeRequest{Reason: "twice"})
	}, time.Minute)
	end := runUntil(t, env, in, 2*time.Minute)

	require.NoError(t, status.Err)
	require.ErrorContains(t, plain.Rejected, "is Degraded, not Running: "+storm)
	require.ErrorContains(t, noReason.Rejected, "reason is empty")
	require.NoError(t, forced.Rejected)
	require.NoError(t, forced.Err)
	require.ErrorContains(t, badResume.Rejected, "reason is empty")
	require.Equal(t, model.ClusterDegraded, mid.Cluster.DetailedStatus, "a refused resume changes nothing")
	require.Len(t, mid.BreakGlass, 1)
	require.Equal(t, api.ActForce, mid.BreakGlass[0].Act)
	require.Equal(t, "INC-1: node wedged", mid.BreakGlass[0].Reason)
	require.Equal(t, "alice", mid.BreakGlass[0].By)
	require.Equal(t, "action:site-a:rack1-c1:1", mid.BreakGlass[0].Holder)
	require.Contains(t, mid.BreakGlass[0].Detail, "forced restart of rack1-c1 while the cluster was Degraded: storm guard")

	require.NoError(t, resumed.Err)
	res := resumed.Value.(api.ResumeResult)
	require.Equal(t, model.ClusterDegraded, res.PreviousStatus)
	require.Equal(t, storm, res.PreviousMessage)
	require.Len(t, res.Leases, 1, "the forced restart's lease is shown")
	require.ErrorContains(t, again.Rejected, "is Running: resume is for a Degraded or Failed cluster")

	require.Equal(t, model.ClusterRunning, end.Cluster.DetailedStatus)
	require.Contains(t, end.Cluster.DetailedStatusMessage, "resumed by bob")
	require.Contains(t, end.Cluster.DetailedStatusMessage, "INC-1: PSUs back")
	require.Len(t, end.BreakGlass, 2)
	require.Equal(t, api.ActResume, end.BreakGlass[1].Act)
	require.Equal(t, "was Degraded: "+storm, end.BreakGlass[1].Detail)
}

// Lease release: refused while its holder runs (the ledger asks Temporal),
// granted once it has ended, recorded with the reason; bad input is
// refused by the validator and never asks Temporal.
func TestClusterBreakGlassLeaseRelease(t *testing.T) {
	env, la, in := sweptLedger(t, time.Hour)
	holder := "upgrade:site-a:rack1-c1"
	env.OnActivity(la.HolderStates, mock.Anything, []string{holder}).Return(map[string]bool{holder: true}, nil).Once()
	env.OnActivity(la.HolderStates, mock.Anything, []string{holder}).Return(map[string]bool{holder: false}, nil).Once()

	var got, bad, whileRunning, freed wftest.UpdateResult
	var mid api.ClusterState
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateAcquireLease, "a", &got, lease.Request{BMM: "rack1-c1", Holder: holder, Operation: "upgrade"})
		wftest.SendUpdate(env, api.UpdateBreakGlassFree, "b", &bad, api.LeaseReleaseRequest{BMM: "rack1-c2"})
		wftest.SendUpdate(env, api.UpdateBreakGlassFree, "c", &whileRunning, api.LeaseReleaseRequest{BMM: "rack1-c1", Reason: "stuck?", By: "carol"})
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		mid = queryState(t, env)
		wftest.SendUpdate(env, api.UpdateBreakGlassFree, "d", &freed, api.LeaseReleaseRequest{BMM: "rack1-c1", Reason: "holder terminated by hand", By: "carol"})
	}, time.Minute)
	end := runUntil(t, env, in, 2*time.Minute)

	require.NoError(t, got.Rejected)
	require.ErrorContains(t, bad.Rejected, "reason is empty")
	require.ErrorContains(t, bad.Rejected, "rack1-c2 holds no lease")
	require.ErrorContains(t, whileRunning.Err, "held by "+holder+" (upgrade), which is still running")
	require.Len(t, mid.Leases, 1, "kept while the holder runs")
	require.Empty(t, mid.BreakGlass)
	require.NoError(t, freed.Err)
	require.Empty(t, end.Leases)
	require.Len(t, end.BreakGlass, 1)
	act := end.BreakGlass[0]
	require.Equal(t, api.ActLeaseRelease, act.Act)
	require.Equal(t, "rack1-c1", act.BMM)
	require.Equal(t, holder, act.Holder)
	require.Equal(t, "holder terminated by hand", act.Reason)
	require.Equal(t, "carol", act.By)
	env.AssertExpectations(t)
}
