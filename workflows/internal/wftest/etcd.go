package wftest

import (
	"context"
	"sync"
	"testing"

	"github.com/rackroll/rackroll/activities/etcd"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"
)

// EtcdSite gives the fake site an etcd section and mocks the etcd
// activities: every member healthy (but the one sick names at the nth
// observation, when sick is set), removals and waits logged among the
// site's calls.
func EtcdSite(t *testing.T, s *FakeSite, env *testsuite.TestWorkflowEnvironment, sick ...func(n int) string) (removed *[]etcd.MemberInput) {
	t.Helper()
	kcp, _ := PlacedRoles(s)
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
			n := s.Bmm(k).NodeName
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
		s.Mu.Lock()
		defer s.Mu.Unlock()
		return s.step("RemoveMember", in.Name)
	})
	env.OnActivity(ea.WaitMemberHealthy, mock.Anything, mock.Anything).AfterFn(s.after("WaitMemberHealthy")).Return(func(_ context.Context, in etcd.WaitMemberInput) (etcd.Member, error) {
		s.Mu.Lock()
		defer s.Mu.Unlock()
		return etcd.Member{Name: in.Name, Healthy: true}, s.step("WaitMemberHealthy", in.Name)
	})
	return &rm
}

// WithEtcd gives the fake site a controlPlane.etcd section.
func WithEtcd(s *FakeSite) {
	s.St.ControlPlane = &model.ControlPlaneSpec{Etcd: &model.EtcdSpec{Endpoints: []string{"https://10.0.0.1:2379"}}}
}

func KcpOf(r *FakeSite) []string {
	kcp, _ := PlacedRoles(r)
	return kcp
}

func IndexOf(calls []string, c string) int {
	for i, x := range calls {
		if x == c {
			return i
		}
	}
	return -1
}
