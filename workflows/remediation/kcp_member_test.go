package remediation

import (
	"testing"

	"github.com/rackroll/rackroll/activities/etcd"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// etcdFailover fails over the KCP pick names (from the placed KCPs) on
// example's fake site exposing etcd, and returns the site, the failover's
// status and the member removals.
func etcdFailover(t *testing.T, example string, pick func(kcp []string) string) (*wftest.FakeSite, api.FailoverStatus, *[]etcd.MemberInput) {
	t.Helper()
	r := wftest.NewFakeSite(t, example)
	wftest.WithEtcd(r)
	env := r.NewEnv()
	removed := wftest.EtcdSite(t, r, env)
	failed := pick(wftest.KcpOf(r))
	r.Bmm(failed).DetailedStatusMessage = model.UnhealthyMessage
	env.ExecuteWorkflow(KCPFailoverWorkflow, api.FailoverInput{Cluster: r.St.Cluster.Name, Failed: failed})
	require.NoError(t, env.GetWorkflowError())
	var st api.FailoverStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	return r, st, removed
}

// A failover on a site exposing etcd removes the failed KCP's member (etcd
// adds no member while a voter is dead), then waits for the promoted
// spare's member to join: the member set is the active KCPs again.
func TestFailoverHandsOverTheMember(t *testing.T) {
	r, st, removed := etcdFailover(t, wftest.Example("four-rack.yaml"), func([]string) string { return "rack2-mgmt1" })
	require.Empty(t, st.Error)
	calls := r.CallLog()
	join, leave := wftest.IndexOf(calls, "WaitMemberHealthy "+r.Bmm("rack4-mgmt1").NodeName), wftest.IndexOf(calls, "RemoveMember "+r.Bmm("rack2-mgmt1").NodeName)
	require.GreaterOrEqual(t, leave, 0, calls)
	require.Less(t, leave, join, calls)
	require.Len(t, *removed, 1, "only the failed KCP's member goes")
	require.Equal(t, model.RoleManagement, r.Role("rack2-mgmt1"))
}

// A KCP that fails over with no spare (a one-rack site keeps none) is
// deprovisioned: its node drained and deleted, its etcd member removed,
// and the failover says so plainly.
func TestFailoverWithoutSpareRemovesTheNode(t *testing.T) {
	first := func(kcp []string) string { return kcp[0] }
	r, st, removed := etcdFailover(t, wftest.Example("one-rack.yaml"), first)
	failed := first(wftest.KcpOf(r))
	node := r.Bmm(failed).NodeName
	for _, w := range []string{"keeps no spare", "its node " + node + " was drained and deleted from Kubernetes",
		"its etcd member " + node + " removed", "the control plane runs one KCP short until " + failed + " is replaced"} {
		require.Contains(t, st.Error, w)
	}
	calls := r.CallLog()
	require.Less(t, wftest.IndexOf(calls, "Drain "+node), wftest.IndexOf(calls, "DeleteNode "+failed), calls)
	require.Len(t, *removed, 1)
	require.Equal(t, 2, (*removed)[0].KeepAtLeast)
	require.False(t, st.Promoted)
	require.Empty(t, r.St.Leases, "the failover's lease released")
}

// On a two-rack site the failed KCP's member is the whole of etcd: the
// spare joins first, and only then is the failed member removed.
func TestFailoverOfTheSoleMemberJoinsFirst(t *testing.T) {
	kcp, spare := wftest.PlacedRoles(wftest.NewFakeSite(t, wftest.Example("two-rack.yaml")))
	r, st, removed := etcdFailover(t, wftest.Example("two-rack.yaml"), func(k []string) string { return k[0] })
	require.Empty(t, st.Error)
	calls := r.CallLog()
	join, leave := wftest.IndexOf(calls, "WaitMemberHealthy "+r.Bmm(spare).NodeName), wftest.IndexOf(calls, "RemoveMember "+r.Bmm(kcp[0]).NodeName)
	require.GreaterOrEqual(t, join, 0, calls)
	require.Less(t, join, leave, calls)
	require.Equal(t, 1, (*removed)[0].KeepAtLeast)
}
