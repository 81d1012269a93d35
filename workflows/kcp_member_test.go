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
	"go.temporal.io/sdk/testsuite"
)

// etcdSite gives the fake site an etcd section and mocks the etcd
// activities: every member healthy (but the one sick names at the nth
// observation, when sick is set), removals and waits logged among the
// site's calls.
func etcdSite(t *testing.T, s *fakeSite, env *testsuite.TestWorkflowEnvironment, sick ...func(n int) string) (removed *[]etcd.MemberInput) {
	t.Helper()
	kcp, _ := placedRoles(s)
	var mu sync.Mutex
	var rm []etcd.MemberInput
	observed := 0
	env.RegisterActivity(ea)
	env.OnActivity(ea.ObserveEtcd, mock.Anything, mock.Anything).Return(func(_ context.Context, in etcd.ObserveInput) (etcd.Observation, error) {
		mu.Lock()
		observed++
		bad := ""
		if len(sick) > 0 {
			bad = sick[0](observed)
		}
		mu.Unlock()
		o := etcd.Observation{SeenAt: env.Now()}
		for i, k := range kcp {
			n := s.bmm(k).NodeName
			m := etcd.Member{Name: n, Healthy: n != bad, Leader: i == len(kcp)-1}
			if !m.Healthy {
				m.Err = "no answer within 5s"
			}
			o.Members = append(o.Members, m)
		}
		return o, nil
	})
	env.OnActivity(ea.RemoveMember, mock.Anything, mock.Anything).Return(func(_ context.Context, in etcd.MemberInput) error {
		mu.Lock()
		rm = append(rm, in)
		mu.Unlock()
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.step("RemoveMember", in.Name)
	})
	env.OnActivity(ea.WaitMemberHealthy, mock.Anything, mock.Anything).Return(func(_ context.Context, in etcd.WaitMemberInput) (etcd.Member, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return etcd.Member{Name: in.Name, Healthy: true}, s.step("WaitMemberHealthy", in.Name)
	})
	return &rm
}

// A reimage of an active KCP on a site exposing etcd removes its member
// before the reset wipes the disk (keeping at least two members on a
// four-rack site), and ends only once the member has joined again.
func TestKCPReimageRemovesMemberFirstAndAwaitsIt(t *testing.T) {
	s := newActionSite(t)
	kcp, _ := placedRoles(s)
	withEtcd(s)
	env := s.env(t, api.ActionID("site-a", kcp[0], 1))
	removed := etcdSite(t, s, env)
	env.ExecuteWorkflow(BMMActionWorkflow, act(api.ActionReimage, kcp[0]))
	require.NoError(t, env.GetWorkflowError())
	node := s.bmm(kcp[0]).NodeName
	calls := s.callLog()
	require.Less(t, indexOf(calls, "RemoveMember "+node), indexOf(calls, "Reimage "+kcp[0]), calls)
	require.Less(t, indexOf(calls, "WaitNodeReady "+kcp[0]), indexOf(calls, "WaitMemberHealthy "+node), calls)
	require.Less(t, indexOf(calls, "WaitMemberHealthy "+node), indexOf(calls, "Uncordon "+kcp[0]), calls)
	require.Equal(t, 2, (*removed)[0].KeepAtLeast)
}

// A compute server's reimage touches no etcd member.
func TestComputeReimageLeavesEtcdAlone(t *testing.T) {
	s := newActionSite(t)
	withEtcd(s)
	env := s.env(t, api.ActionID("site-a", "rack1-c1", 1))
	removed := etcdSite(t, s, env)
	env.ExecuteWorkflow(BMMActionWorkflow, act(api.ActionReimage, "rack1-c1"))
	require.NoError(t, env.GetWorkflowError())
	require.Empty(t, *removed)
	require.Equal(t, -1, indexOf(s.callLog(), "WaitMemberHealthy rack1-c1"))
}

// A member the rest could not spare is not removed, and nothing is wiped.
func TestKCPReimageStopsWhenTheMemberCannotGo(t *testing.T) {
	s := newActionSite(t)
	kcp, _ := placedRoles(s)
	withEtcd(s)
	s.fail["RemoveMember"] = "refusing to remove etcd member: 1 of 2 remaining healthy"
	env := s.env(t, api.ActionID("site-a", kcp[0], 1))
	etcdSite(t, s, env)
	env.ExecuteWorkflow(BMMActionWorkflow, act(api.ActionReimage, kcp[0]))
	err := env.GetWorkflowError()
	require.Error(t, err)
	require.Contains(t, err.Error(), "refusing to remove etcd member")
	require.Equal(t, -1, indexOf(s.callLog(), "Reimage "+kcp[0]), "no reset after a refused removal")
}

// withEtcd gives the fake site a controlPlane.etcd section.
func withEtcd(s *fakeSite) {
	s.st.ControlPlane = &model.ControlPlaneSpec{Etcd: &model.EtcdSpec{Endpoints: []string{"https://10.0.0.1:2379"}}}
}

// etcdFailover fails over the KCP pick names (from the placed KCPs) on
// example's fake site exposing etcd, and returns the site, the failover's
// status and the member removals.
func etcdFailover(t *testing.T, example string, pick func(kcp []string) string) (*fakeSite, api.FailoverStatus, *[]etcd.MemberInput) {
	t.Helper()
	r := newFakeSite(t, example)
	withEtcd(r)
	env := r.newEnv()
	removed := etcdSite(t, r, env)
	failed := pick(kcpOf(r))
	r.bmm(failed).DetailedStatusMessage = model.UnhealthyMessage
	env.ExecuteWorkflow(KCPFailoverWorkflow, api.FailoverInput{Cluster: r.st.Cluster.Name, Failed: failed})
	require.NoError(t, env.GetWorkflowError())
	var st api.FailoverStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	return r, st, removed
}

func kcpOf(r *fakeSite) []string {
	kcp, _ := placedRoles(r)
	return kcp
}

func indexOf(calls []string, c string) int {
	for i, x := range calls {
		if x == c {
			return i
		}
	}
	return -1
}

// A failover on a site exposing etcd removes the failed KCP's member (etcd
// adds no member while a voter is dead), then waits for the promoted
// spare's member to join: the member set is the active KCPs again.
func TestFailoverHandsOverTheMember(t *testing.T) {
	r, st, removed := etcdFailover(t, "../examples/four-rack.yaml", func([]string) string { return "rack2-mgmt1" })
	require.Empty(t, st.Error)
	calls := r.callLog()
	join, leave := indexOf(calls, "WaitMemberHealthy "+r.bmm("rack4-mgmt1").NodeName), indexOf(calls, "RemoveMember "+r.bmm("rack2-mgmt1").NodeName)
	require.GreaterOrEqual(t, leave, 0, calls)
	require.Less(t, leave, join, calls)
	require.Len(t, *removed, 1, "only the failed KCP's member goes")
	require.Equal(t, model.RoleManagement, r.role("rack2-mgmt1"))
}

// A KCP that fails over with no spare (a one-rack site keeps none) is
// deprovisioned: its node drained and deleted, its etcd member removed,
// and the failover says so plainly.
func TestFailoverWithoutSpareRemovesTheNode(t *testing.T) {
	first := func(kcp []string) string { return kcp[0] }
	r, st, removed := etcdFailover(t, "../examples/one-rack.yaml", first)
	failed := first(kcpOf(r))
	node := r.bmm(failed).NodeName
	for _, w := range []string{"keeps no spare", "its node " + node + " was drained and deleted from Kubernetes",
		"its etcd member " + node + " removed", "the control plane runs one KCP short until " + failed + " is replaced"} {
		require.Contains(t, st.Error, w)
	}
	calls := r.callLog()
	require.Less(t, indexOf(calls, "Drain "+node), indexOf(calls, "DeleteNode "+failed), calls)
	require.Len(t, *removed, 1)
	require.Equal(t, 2, (*removed)[0].KeepAtLeast)
	require.False(t, st.Promoted)
	require.Empty(t, r.st.Leases, "the failover's lease released")
}

// A reimage of a KCP asks the live gate again after the evacuation, just
// before the wipe: a member that fell sick meanwhile stops it.
func TestKCPReimageAsksTheGateAgainBeforeTheWipe(t *testing.T) {
	s := newActionSite(t)
	kcp, _ := placedRoles(s)
	withEtcd(s)
	env := s.env(t, api.ActionID("site-a", kcp[0], 1))
	// Healthy at the lease's two looks; another member down at the third,
	// after the evacuation.
	etcdSite(t, s, env, func(n int) string {
		if n >= 3 {
			return s.bmm(kcp[1]).NodeName
		}
		return ""
	})
	env.ExecuteWorkflow(BMMActionWorkflow, act(api.ActionReimage, kcp[0]))
	err := env.GetWorkflowError()
	require.Error(t, err)
	require.Contains(t, err.Error(), "before the reinstall")
	require.Contains(t, err.Error(), kcp[1])
	require.Equal(t, -1, indexOf(s.callLog(), "Reimage "+kcp[0]), "no reset")
	require.Equal(t, -1, indexOf(s.callLog(), "RemoveMember "+s.bmm(kcp[0]).NodeName), "its member kept")
}

// On a two-rack site the failed KCP's member is the whole of etcd: the
// spare joins first, and only then is the failed member removed.
func TestFailoverOfTheSoleMemberJoinsFirst(t *testing.T) {
	kcp, spare := placedRoles(newFakeSite(t, "../examples/two-rack.yaml"))
	r, st, removed := etcdFailover(t, "../examples/two-rack.yaml", func(k []string) string { return k[0] })
	require.Empty(t, st.Error)
	calls := r.callLog()
	join, leave := indexOf(calls, "WaitMemberHealthy "+r.bmm(spare).NodeName), indexOf(calls, "RemoveMember "+r.bmm(kcp[0]).NodeName)
	require.GreaterOrEqual(t, join, 0, calls)
	require.Less(t, join, leave, calls)
	require.Equal(t, 1, (*removed)[0].KeepAtLeast)
}
