package actions

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// A reimage of an active KCP on a site exposing etcd removes its member
// before the reset wipes the disk (keeping at least two members on a
// four-rack site), and ends only once the member has joined again.
func TestKCPReimageRemovesMemberFirstAndAwaitsIt(t *testing.T) {
	s := wftest.NewActionSite(t)
	kcp, _ := wftest.PlacedRoles(s)
	wftest.WithEtcd(s)
	env := s.Env(t, api.ActionID("site-a", kcp[0], 1))
	removed := wftest.EtcdSite(t, s, env)
	env.ExecuteWorkflow(BMMActionWorkflow, wftest.Act(api.ActionReimage, kcp[0]))
	require.NoError(t, env.GetWorkflowError())
	node := s.Bmm(kcp[0]).NodeName
	calls := s.CallLog()
	require.Less(t, wftest.IndexOf(calls, "RemoveMember "+node), wftest.IndexOf(calls, "Reimage "+kcp[0]), calls)
	require.Less(t, wftest.IndexOf(calls, "WaitNodeReady "+kcp[0]), wftest.IndexOf(calls, "WaitMemberHealthy "+node), calls)
	require.Less(t, wftest.IndexOf(calls, "WaitMemberHealthy "+node), wftest.IndexOf(calls, "Uncordon "+kcp[0]), calls)
	require.Equal(t, 2, (*removed)[0].KeepAtLeast)
}

// A compute server's reimage touches no etcd member.
func TestComputeReimageLeavesEtcdAlone(t *testing.T) {
	s := wftest.NewActionSite(t)
	wftest.WithEtcd(s)
	env := s.Env(t, api.ActionID("site-a", "rack1-c1", 1))
	removed := wftest.EtcdSite(t, s, env)
	env.ExecuteWorkflow(BMMActionWorkflow, wftest.Act(api.ActionReimage, "rack1-c1"))
	require.NoError(t, env.GetWorkflowError())
	require.Empty(t, *removed)
	require.Equal(t, -1, wftest.IndexOf(s.CallLog(), "WaitMemberHealthy rack1-c1"))
}

// A member the rest could not spare is not removed, and nothing is wiped.
func TestKCPReimageStopsWhenTheMemberCannotGo(t *testing.T) {
	s := wftest.NewActionSite(t)
	kcp, _ := wftest.PlacedRoles(s)
	wftest.WithEtcd(s)
	s.Fail["RemoveMember"] = "refusing to remove etcd member: 1 of 2 remaining healthy"
	env := s.Env(t, api.ActionID("site-a", kcp[0], 1))
	wftest.EtcdSite(t, s, env)
	env.ExecuteWorkflow(BMMActionWorkflow, wftest.Act(api.ActionReimage, kcp[0]))
	err := env.GetWorkflowError()
	require.Error(t, err)
	require.Contains(t, err.Error(), "refusing to remove etcd member")
	require.Equal(t, -1, wftest.IndexOf(s.CallLog(), "Reimage "+kcp[0]), "no reset after a refused removal")
}

// A reimage of a KCP asks the live gate again after the evacuation, just
// before the wipe: a member that fell sick meanwhile stops it.
func TestKCPReimageAsksTheGateAgainBeforeTheWipe(t *testing.T) {
	s := wftest.NewActionSite(t)
	kcp, _ := wftest.PlacedRoles(s)
	wftest.WithEtcd(s)
	env := s.Env(t, api.ActionID("site-a", kcp[0], 1))
	// Healthy at the lease's two looks; another member down at the third,
	// after the evacuation.
	wftest.EtcdSite(t, s, env, func(n int) string {
		if n >= 3 {
			return s.Bmm(kcp[1]).NodeName
		}
		return ""
	})
	env.ExecuteWorkflow(BMMActionWorkflow, wftest.Act(api.ActionReimage, kcp[0]))
	err := env.GetWorkflowError()
	require.Error(t, err)
	require.Contains(t, err.Error(), "before the reinstall")
	require.Contains(t, err.Error(), kcp[1])
	require.Equal(t, -1, wftest.IndexOf(s.CallLog(), "Reimage "+kcp[0]), "no reset")
	require.Equal(t, -1, wftest.IndexOf(s.CallLog(), "RemoveMember "+s.Bmm(kcp[0]).NodeName), "its member kept")
}

// The member's join is a step of its own after the reimage, bounded by the
// table's etcdJoin: a member that never joins fails it there, naming the
// key (it once waited a constant ten minutes, whatever the table said).
func TestKCPMemberThatNeverJoinsFailsAtTheEtcdJoinLimit(t *testing.T) {
	s := wftest.NewActionSite(t)
	kcp, _ := wftest.PlacedRoles(s)
	wftest.WithEtcd(s)
	s.St.Timeouts = model.DefaultTimeouts()
	s.St.Timeouts.EtcdJoin = model.Duration(4 * time.Minute)
	s.Delay["WaitMemberHealthy"] = time.Hour
	env := s.Env(t, api.ActionID("site-a", kcp[0], 1))
	wftest.EtcdSite(t, s, env)
	start := env.Now()
	env.ExecuteWorkflow(BMMActionWorkflow, wftest.Act(api.ActionReimage, kcp[0]))
	err := env.GetWorkflowError()
	require.Error(t, err)
	require.Contains(t, err.Error(), "did not join as a healthy voter within 4m0s (timeouts.etcdJoin)")
	require.Less(t, env.Now().Sub(start), time.Hour, "ended at the join's limit")
}
