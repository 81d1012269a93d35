package actions

import (
	"context"
	"sync"
	"testing"

	"github.com/rackroll/rackroll/activities/etcd"
	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
)

// The reproduction of issue 14 in the SDK's test environment: another KCP's
// node is Unknown while the ledger still says Ready; a restart of a KCP is
// refused naming it, before any side effect and without a lease.
func TestActionOnKCPRefusedByLiveGate(t *testing.T) {
	s := wftest.NewActionSite(t)
	kcp, _ := wftest.PlacedRoles(s)
	s.Set(kcp[1], func(n *wftest.FakeNode) { n.Ready = model.ReadyUnknown })
	require.Equal(t, model.ReadyTrue, s.LedgerBMM(kcp[1]).ReadyState, "the ledger's memory says Ready")
	_, err := s.RunAction(t, wftest.Act(api.ActionRestart, kcp[0]))
	require.ErrorContains(t, err, "restart of "+kcp[0]+" refused")
	require.ErrorContains(t, err, "control-plane member "+kcp[1]+" is unhealthy")
	require.ErrorContains(t, err, "Ready=Unknown")
	require.ErrorContains(t, err, "seen at")
	requireAppErrorType(t, err, ledger.ErrLeaseRejected)
	require.Empty(t, s.CallLog(), "no side effect")
	require.Empty(t, s.Leases(), "no lease taken")
	require.Equal(t, 1, s.CPObserved, "observed once, refused before the lease")
}

// With every member healthy the restart runs; the gate observes before the
// lease and again once it is granted. A compute server needs no observation.
func TestActionOnKCPObservesBeforeAndAfterTheLease(t *testing.T) {
	s := wftest.NewActionSite(t)
	kcp, _ := wftest.PlacedRoles(s)
	_, err := s.RunAction(t, wftest.Act(api.ActionRestart, kcp[0]))
	require.NoError(t, err)
	require.Equal(t, 2, s.CPObserved)
	require.Equal(t, []string{"Restart " + kcp[0], "WaitNodeReady " + kcp[0]}, s.CallLog())

	c := wftest.NewActionSite(t)
	_, err = c.RunAction(t, wftest.Act(api.ActionRestart, wftest.Compute))
	require.NoError(t, err)
	require.Zero(t, c.CPObserved, "a compute server is no control-plane member")
}

// The ledger refuses a lease only because the observation went stale (the
// worker was restarted between the two): the gate observes again and asks
// again, and the restart goes ahead; past staleAsks refusals it stops,
// untouched, saying why.
func TestActionOnKCPObservesAgainWhenTheLedgerFindsItStale(t *testing.T) {
	s := wftest.NewActionSite(t)
	kcp, _ := wftest.PlacedRoles(s)
	s.StaleAcquires = 1
	_, err := s.RunAction(t, wftest.Act(api.ActionRestart, kcp[0]))
	require.NoError(t, err)
	require.Equal(t, 3, s.CPObserved, "observed, refused as stale, observed again, granted, checked again")
	require.Equal(t, []string{"Restart " + kcp[0], "WaitNodeReady " + kcp[0]}, s.CallLog())

	g := wftest.NewActionSite(t)
	kcp, _ = wftest.PlacedRoles(g)
	g.StaleAcquires = 10
	_, err = g.RunAction(t, wftest.Act(api.ActionRestart, kcp[0]))
	require.ErrorContains(t, err, "observe again")
	require.Equal(t, 3, g.CPObserved, "three asks, each on its own observation")
	require.Equal(t, 7, g.StaleAcquires, "no fourth ask")
	require.Empty(t, g.CallLog(), "no side effect")
	require.Empty(t, g.Leases(), "no lease taken")
}

// A member falls sick between the first check and the grant: the re-check
// refuses, the lease is given back, nothing was touched.
func TestActionOnKCPRecheckedAfterTheLease(t *testing.T) {
	s := wftest.NewActionSite(t)
	kcp, _ := wftest.PlacedRoles(s)
	s.OnCPObserve = func(n int) {
		if n == 2 {
			s.Nodes[kcp[2]].Rofs = true
		}
	}
	_, err := s.RunAction(t, wftest.Act(api.ActionPowerOff, kcp[0]))
	require.ErrorContains(t, err, kcp[2]+" is unhealthy")
	require.ErrorContains(t, err, "root filesystem read-only")
	require.Empty(t, s.CallLog(), "no side effect")
	require.Empty(t, s.Leases(), "the lease was given back")
}

// A restart of the KCP that leads etcd moves leadership to a healthy
// member first, then observes again and goes ahead.
func TestActionOnTheEtcdLeaderMovesLeadershipFirst(t *testing.T) {
	s := wftest.NewActionSite(t)
	kcp, _ := wftest.PlacedRoles(s)
	s.St.ControlPlane = &model.ControlPlaneSpec{Etcd: &model.EtcdSpec{Endpoints: []string{"https://10.0.0.1:2379"}}}
	var mu sync.Mutex
	leader := s.Bmm(kcp[0]).NodeName
	var moves []string
	observed := 0
	env := s.Env(t, api.ActionID("site-a", kcp[0], 1))
	env.RegisterActivity(ea)
	env.OnActivity(ea.ObserveEtcd, mock.Anything, mock.Anything).Return(func(_ context.Context, in etcd.ObserveInput) (etcd.Observation, error) {
		mu.Lock()
		defer mu.Unlock()
		observed++
		o := etcd.Observation{SeenAt: env.Now()}
		for _, k := range kcp {
			n := s.Bmm(k).NodeName
			o.Members = append(o.Members, etcd.Member{Name: n, Healthy: true, Leader: n == leader})
		}
		return o, nil
	})
	env.OnActivity(ea.MoveLeader, mock.Anything, mock.Anything).Return(func(_ context.Context, in etcd.MoveLeaderInput) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		moves = append(moves, in.Away)
		leader = s.Bmm(kcp[1]).NodeName
		return leader, nil
	})
	env.ExecuteWorkflow(BMMActionWorkflow, wftest.Act(api.ActionRestart, kcp[0]))
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{s.Bmm(kcp[0]).NodeName}, moves, "leadership moved away from the target, once")
	require.Equal(t, 3, observed, "observe, move, observe again; once more after the lease")
	require.Equal(t, []string{"Restart " + kcp[0], "WaitNodeReady " + kcp[0]}, s.CallLog())
}
