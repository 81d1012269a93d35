package replaceroles

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

func runReplaceRoles(t *testing.T, f *wftest.FakeSite) api.ReplaceRolesStatus {
	t.Helper()
	env := f.NewEnv()
	env.ExecuteWorkflow(ReplaceRolesWorkflow, api.ReplaceRolesInput{Cluster: f.St.Cluster.Name})
	require.NoError(t, env.GetWorkflowError())
	var st api.ReplaceRolesStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.True(t, st.Finished)
	require.Empty(t, f.St.Leases, "every lease released")
	return st
}

// Two racks grown to three: the spare stays in rack2, rack2's management
// server and then rack3's become KCPs, one at a time; a second run finds
// nothing to do.
func TestReplaceRolesTwoToThreeRacks(t *testing.T) {
	f := wftest.NewFakeSite(t, wftest.Example("two-rack.yaml"))
	f.Grow("rack3-mgmt1:management/a", "rack3-mgmt2:management/b", "rack3-c1:compute")
	st := runReplaceRoles(t, f)
	require.Empty(t, st.Error)
	require.Len(t, st.Plan, 2)
	require.Equal(t, []string{"role rack2-mgmt2 kcp", "role rack3-mgmt1 kcp"}, f.Log, "relabels only: both serve already")
	require.Len(t, st.Done, 2)
	for _, d := range st.Done {
		require.True(t, d.OK, d.Detail)
	}
	require.Equal(t, model.RoleKCPSpare, f.Role("rack2-mgmt1"))
	require.Empty(t, f.Bmm("rack2-mgmt2").ManagementGroup, "a KCP leaves its management group")

	f.Log = nil
	again := runReplaceRoles(t, f)
	require.Empty(t, again.Error)
	require.Empty(t, again.Plan)
	require.Empty(t, f.Log)
}

// The old merge's mistakes are undone: a second spare becomes management
// again (it serves: a relabel), a fourth KCP leaves the control plane and
// is provisioned as management.
func TestReplaceRolesRepairs(t *testing.T) {
	f := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	f.Bmm("rack1-mgmt2").Roles = []model.Role{model.RoleKCPSpare}
	f.Bmm("rack2-mgmt2").Roles = []model.Role{model.RoleKCP}
	st := runReplaceRoles(t, f)
	require.Empty(t, st.Error)
	require.Equal(t, []string{"role rack2-mgmt2 management", "reimage rack2-mgmt2 4.1.2", "role rack1-mgmt2 management"}, f.Log)
	require.Equal(t, model.BMMProvisioned, f.Bmm("rack2-mgmt2").DetailedStatus)
	require.NotEmpty(t, f.Bmm("rack2-mgmt2").ManagementGroup)
	require.NotEmpty(t, f.Bmm("rack1-mgmt2").ManagementGroup)
}

// A change the live gate refuses stops the workflow with the reason; no
// role moved. Once the member is healthy again, a re-run makes the change.
func TestReplaceRolesGateRefuses(t *testing.T) {
	f := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	f.Bmm("rack2-mgmt2").Roles = []model.Role{model.RoleKCP}
	f.Set("rack3-mgmt1", func(n *wftest.FakeNode) { n.Ready = model.ReadyFalse })
	st := runReplaceRoles(t, f)
	require.Contains(t, st.Error, "rack2-mgmt2 (rack2): kcp -> management")
	require.Contains(t, st.Error, "rack3-mgmt1")
	require.Empty(t, f.Log)
	require.Equal(t, model.RoleKCP, f.Role("rack2-mgmt2"))

	f.Set("rack3-mgmt1", func(n *wftest.FakeNode) { n.Ready = model.ReadyTrue })
	again := runReplaceRoles(t, f)
	require.Empty(t, again.Error)
	require.Equal(t, []string{"role rack2-mgmt2 management", "reimage rack2-mgmt2 4.1.2"}, f.Log)
}

// Not on a cluster that is not Running.
func TestReplaceRolesNeedsRunning(t *testing.T) {
	f := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	f.St.Cluster.DetailedStatus = model.ClusterUpdating
	st := runReplaceRoles(t, f)
	require.Contains(t, st.Error, "is Updating, not Running")
}

// Four KCPs and no spare on three racks: rack1's second KCP retires to be
// the spare (one change, not two), the upgrade's way: out of the control
// plane, cordoned, powered off, waiting Available.
func TestReplaceRolesRetiresToSpare(t *testing.T) {
	f := wftest.NewFakeSite(t, wftest.Example("two-rack.yaml"))
	f.Grow("rack3-mgmt1:kcp", "rack3-c1:compute")
	f.Bmm("rack1-mgmt2").Roles = []model.Role{model.RoleKCP}
	f.Bmm("rack2-mgmt1").Roles = []model.Role{model.RoleKCP}
	st := runReplaceRoles(t, f)
	require.Empty(t, st.Error)
	require.Len(t, st.Done, 1)
	require.Equal(t, "rack1-mgmt2 (rack1): kcp -> kcp-spare", st.Done[0].Change.String())
	b := f.Bmm("rack1-mgmt2")
	require.Equal(t, []model.Role{model.RoleKCPSpare}, b.Roles)
	require.Equal(t, model.BMMAvailable, b.DetailedStatus)
	require.Equal(t, model.PowerOff, b.PowerState)
	require.Contains(t, b.DetailedStatusMessage, "Retired from the control plane by the re-placement")
	require.Equal(t, "role rack1-mgmt2 kcp-spare", f.Log[0])
}
