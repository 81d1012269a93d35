package workflows

import (
	"context"
	"sync"
	"testing"

	"github.com/rackroll/rackroll/activities/etcd"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
)

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
