package workflows

import (
	"context"
	"sync"
	"testing"

	"github.com/rackroll/rackroll/activities/etcd"
	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
)

// The reproduction of issue 14 in the SDK's test environment: another KCP's
// node is Unknown while the ledger still says Ready; a restart of a KCP is
// refused naming it, before any side effect and without a lease.
func TestActionOnKCPRefusedByLiveGate(t *testing.T) {
	s := newActionSite(t)
	kcp, _ := placedRoles(s)
	s.set(kcp[1], func(n *fakeNode) { n.ready = model.ReadyUnknown })
	require.Equal(t, model.ReadyTrue, s.ledgerBMM(kcp[1]).ReadyState, "the ledger's memory says Ready")
	_, err := s.runAction(t, act(api.ActionRestart, kcp[0]))
	require.ErrorContains(t, err, "restart of "+kcp[0]+" refused")
	require.ErrorContains(t, err, "control-plane member "+kcp[1]+" is unhealthy")
	require.ErrorContains(t, err, "Ready=Unknown")
	require.ErrorContains(t, err, "seen at")
	requireAppErrorType(t, err, ledger.ErrLeaseRejected)
	require.Empty(t, s.callLog(), "no side effect")
	require.Empty(t, s.leases(), "no lease taken")
	require.Equal(t, 1, s.cpObserved, "observed once, refused before the lease")
}

// With every member healthy the restart runs; the gate observes before the
// lease and again once it is granted. A compute server needs no observation.
func TestActionOnKCPObservesBeforeAndAfterTheLease(t *testing.T) {
	s := newActionSite(t)
	kcp, _ := placedRoles(s)
	_, err := s.runAction(t, act(api.ActionRestart, kcp[0]))
	require.NoError(t, err)
	require.Equal(t, 2, s.cpObserved)
	require.Equal(t, []string{"Restart " + kcp[0], "WaitNodeReady " + kcp[0]}, s.callLog())

	c := newActionSite(t)
	_, err = c.runAction(t, act(api.ActionRestart, compute))
	require.NoError(t, err)
	require.Zero(t, c.cpObserved, "a compute server is no control-plane member")
}

// A member falls sick between the first check and the grant: the re-check
// refuses, the lease is given back, nothing was touched.
func TestActionOnKCPRecheckedAfterTheLease(t *testing.T) {
	s := newActionSite(t)
	kcp, _ := placedRoles(s)
	s.onCPObserve = func(n int) {
		if n == 2 {
			s.nodes[kcp[2]].rofs = true
		}
	}
	_, err := s.runAction(t, act(api.ActionPowerOff, kcp[0]))
	require.ErrorContains(t, err, kcp[2]+" is unhealthy")
	require.ErrorContains(t, err, "root filesystem read-only")
	require.Empty(t, s.callLog(), "no side effect")
	require.Empty(t, s.leases(), "the lease was given back")
}

// An upgrade of the one-rack site while a KCP is Unknown touches no KCP:
// it pauses before the first KCP step with the status naming the sick
// server; once the server is healthy and the operator continues, it goes on
// to the end.
func TestUpgradePausesAtKCPStepWhileAMemberIsUnhealthy(t *testing.T) {
	f, env := siteEnv(t, "../examples/one-rack.yaml")
	kcp, _ := placedRoles(f)
	require.Len(t, kcp, 3)
	f.set(kcp[1], func(n *fakeNode) { n.ready = model.ReadyUnknown })
	var paused []string
	var reimagedWhilePaused []string
	eachPause(t, env, 120, func(st api.UpgradeStatus) {
		paused = append(paused, st.DetailedStatusMessage)
		f.mu.Lock()
		reimagedWhilePaused = append([]string(nil), f.reimages...)
		f.mu.Unlock()
		if len(paused) == 2 { // the operator mends it, then continues
			f.set(kcp[1], func(n *fakeNode) { n.ready = model.ReadyTrue })
		}
		sendUpdate(env, api.UpdateContinue, "c"+st.DetailedStatusMessage, &updateResult{}, nil)
	})
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())
	require.GreaterOrEqual(t, len(paused), 2, "paused, continued while still sick, paused again: %v", paused)
	for _, p := range paused[:2] {
		require.Contains(t, p, "KCP step "+kcp[0]+" paused by the live control-plane check")
		require.Contains(t, p, kcp[1])
		require.Contains(t, p, "Ready=Unknown")
	}
	for _, b := range reimagedWhilePaused {
		require.NotContains(t, kcp, b, "no KCP touched while a member is unhealthy")
	}
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.PhaseDone, st.Phase, st.DetailedStatusMessage)
	require.Equal(t, model.ClusterRunning, f.st.Cluster.DetailedStatus)
}

// A member falls sick while the step drains its server: the gate asked
// again just before the reimage refuses, the upgrade pauses naming it, and
// once healthy and continued the step runs again to the end.
func TestUpgradeKCPStepRecheckedBeforeTheReimage(t *testing.T) {
	f, env := siteEnv(t, "../examples/one-rack.yaml")
	kcp, _ := placedRoles(f)
	// The server workflow's checks: 1, 2 before and after the lease; 3 before the reimage.
	f.onCPObserve = func(n int) {
		if n == 3 {
			f.nodes[kcp[1]].ready = model.ReadyUnknown
		}
	}
	var paused []string
	var reimagedAtPause []string
	eachPause(t, env, 120, func(st api.UpgradeStatus) {
		paused = append(paused, st.DetailedStatusMessage)
		f.mu.Lock()
		reimagedAtPause = append([]string(nil), f.reimages...)
		f.nodes[kcp[1]].ready = model.ReadyTrue
		f.mu.Unlock()
		sendUpdate(env, api.UpdateContinue, "c"+st.DetailedStatusMessage, &updateResult{}, nil)
	})
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, paused, 1, "%v", paused)
	require.Contains(t, paused[0], "before the reimage")
	require.Contains(t, paused[0], kcp[1]+" is unhealthy")
	require.Empty(t, reimagedAtPause, "the reimage did not start")
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.PhaseDone, st.Phase, st.DetailedStatusMessage)
	require.Equal(t, 1, count(f.reimages, kcp[0]), "the step ran again, reimaging once")
}

func count(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// A restart of the KCP that leads etcd moves leadership to a healthy
// member first, then observes again and goes ahead.
func TestActionOnTheEtcdLeaderMovesLeadershipFirst(t *testing.T) {
	s := newActionSite(t)
	kcp, _ := placedRoles(s)
	s.st.ControlPlane = &model.ControlPlaneSpec{Etcd: &model.EtcdSpec{Endpoints: []string{"https://10.0.0.1:2379"}}}
	var mu sync.Mutex
	leader := s.bmm(kcp[0]).NodeName
	var moves []string
	observed := 0
	env := s.env(t, api.ActionID("site-a", kcp[0], 1))
	env.RegisterActivity(ea)
	env.OnActivity(ea.ObserveEtcd, mock.Anything, mock.Anything).Return(func(_ context.Context, in etcd.ObserveInput) (etcd.Observation, error) {
		mu.Lock()
		defer mu.Unlock()
		observed++
		o := etcd.Observation{SeenAt: env.Now()}
		for _, k := range kcp {
			n := s.bmm(k).NodeName
			o.Members = append(o.Members, etcd.Member{Name: n, Healthy: true, Leader: n == leader})
		}
		return o, nil
	})
	env.OnActivity(ea.MoveLeader, mock.Anything, mock.Anything).Return(func(_ context.Context, in etcd.MoveLeaderInput) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		moves = append(moves, in.Away)
		leader = s.bmm(kcp[1]).NodeName
		return leader, nil
	})
	env.ExecuteWorkflow(BMMActionWorkflow, act(api.ActionRestart, kcp[0]))
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []string{s.bmm(kcp[0]).NodeName}, moves, "leadership moved away from the target, once")
	require.Equal(t, 3, observed, "observe, move, observe again; once more after the lease")
	require.Equal(t, []string{"Restart " + kcp[0], "WaitNodeReady " + kcp[0]}, s.callLog())
}
