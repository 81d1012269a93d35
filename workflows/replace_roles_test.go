package workflows

import (
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

// grow adds servers to the fake site as a registration joins them: running,
// Ready, on the site's runtime, with the role given ("rack3-mgmt1:management/a").
func (f *fakeSite) grow(entries ...string) {
	for _, e := range entries {
		b := model.BMM{ReadyState: model.ReadyTrue, DetailedStatus: model.BMMProvisioned, RuntimeVersion: f.st.Cluster.RuntimeVersion,
			PowerState: model.PowerOn, CordonStatus: model.Uncordoned}
		name, role, _ := strings.Cut(e, ":")
		role, b.ManagementGroup, _ = strings.Cut(role, "/")
		b.Name, b.NodeName, b.Roles = name, name, []model.Role{model.Role(role)}
		b.Rack, _, _ = strings.Cut(name, "-")
		f.st.Cluster.BMMs = append(f.st.Cluster.BMMs, b)
		f.nodes[name] = &fakeNode{exists: true, ready: model.ReadyTrue, version: f.st.Cluster.RuntimeVersion, since: -1}
		f.shown[name] = events.NodeReady
	}
}

func runReplaceRoles(t *testing.T, f *fakeSite) api.ReplaceRolesStatus {
	t.Helper()
	env := f.newEnv()
	env.ExecuteWorkflow(ReplaceRolesWorkflow, api.ReplaceRolesInput{Cluster: f.st.Cluster.Name})
	require.NoError(t, env.GetWorkflowError())
	var st api.ReplaceRolesStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.True(t, st.Finished)
	require.Empty(t, f.st.Leases, "every lease released")
	return st
}

// Two racks grown to three: the spare stays in rack2, rack2's management
// server and then rack3's become KCPs, one at a time; a second run finds
// nothing to do.
func TestReplaceRolesTwoToThreeRacks(t *testing.T) {
	f := newFakeSite(t, "../examples/two-rack.yaml")
	f.grow("rack3-mgmt1:management/a", "rack3-mgmt2:management/b", "rack3-c1:compute")
	st := runReplaceRoles(t, f)
	require.Empty(t, st.Error)
	require.Len(t, st.Plan, 2)
	require.Equal(t, []string{"role rack2-mgmt2 kcp", "role rack3-mgmt1 kcp"}, f.log, "relabels only: both serve already")
	require.Len(t, st.Done, 2)
	for _, d := range st.Done {
		require.True(t, d.OK, d.Detail)
	}
	require.Equal(t, model.RoleKCPSpare, f.role("rack2-mgmt1"))
	require.Empty(t, f.bmm("rack2-mgmt2").ManagementGroup, "a KCP leaves its management group")

	f.log = nil
	again := runReplaceRoles(t, f)
	require.Empty(t, again.Error)
	require.Empty(t, again.Plan)
	require.Empty(t, f.log)
}

// The old merge's mistakes are undone: a second spare becomes management
// again (it serves: a relabel), a fourth KCP leaves the control plane and
// is provisioned as management.
func TestReplaceRolesRepairs(t *testing.T) {
	f := newFakeSite(t, "../examples/four-rack.yaml")
	f.bmm("rack1-mgmt2").Roles = []model.Role{model.RoleKCPSpare}
	f.bmm("rack2-mgmt2").Roles = []model.Role{model.RoleKCP}
	st := runReplaceRoles(t, f)
	require.Empty(t, st.Error)
	require.Equal(t, []string{"role rack2-mgmt2 management", "reimage rack2-mgmt2 4.1.2", "role rack1-mgmt2 management"}, f.log)
	require.Equal(t, model.BMMProvisioned, f.bmm("rack2-mgmt2").DetailedStatus)
	require.NotEmpty(t, f.bmm("rack2-mgmt2").ManagementGroup)
	require.NotEmpty(t, f.bmm("rack1-mgmt2").ManagementGroup)
}

// A change the live gate refuses stops the workflow with the reason; no
// role moved. Once the member is healthy again, a re-run makes the change.
func TestReplaceRolesGateRefuses(t *testing.T) {
	f := newFakeSite(t, "../examples/four-rack.yaml")
	f.bmm("rack2-mgmt2").Roles = []model.Role{model.RoleKCP}
	f.set("rack3-mgmt1", func(n *fakeNode) { n.ready = model.ReadyFalse })
	st := runReplaceRoles(t, f)
	require.Contains(t, st.Error, "rack2-mgmt2 (rack2): kcp -> management")
	require.Contains(t, st.Error, "rack3-mgmt1")
	require.Empty(t, f.log)
	require.Equal(t, model.RoleKCP, f.role("rack2-mgmt2"))

	f.set("rack3-mgmt1", func(n *fakeNode) { n.ready = model.ReadyTrue })
	again := runReplaceRoles(t, f)
	require.Empty(t, again.Error)
	require.Equal(t, []string{"role rack2-mgmt2 management", "reimage rack2-mgmt2 4.1.2"}, f.log)
}

// Not on a cluster that is not Running.
func TestReplaceRolesNeedsRunning(t *testing.T) {
	f := newFakeSite(t, "../examples/four-rack.yaml")
	f.st.Cluster.DetailedStatus = model.ClusterUpdating
	st := runReplaceRoles(t, f)
	require.Contains(t, st.Error, "is Updating, not Running")
}

// Four KCPs and no spare on three racks: rack1's second KCP retires to be
// the spare (one change, not two), the upgrade's way: out of the control
// plane, cordoned, powered off, waiting Available.
func TestReplaceRolesRetiresToSpare(t *testing.T) {
	f := newFakeSite(t, "../examples/two-rack.yaml")
	f.grow("rack3-mgmt1:kcp", "rack3-c1:compute")
	f.bmm("rack1-mgmt2").Roles = []model.Role{model.RoleKCP}
	f.bmm("rack2-mgmt1").Roles = []model.Role{model.RoleKCP}
	st := runReplaceRoles(t, f)
	require.Empty(t, st.Error)
	require.Len(t, st.Done, 1)
	require.Equal(t, "rack1-mgmt2 (rack1): kcp -> kcp-spare", st.Done[0].Change.String())
	b := f.bmm("rack1-mgmt2")
	require.Equal(t, []model.Role{model.RoleKCPSpare}, b.Roles)
	require.Equal(t, model.BMMAvailable, b.DetailedStatus)
	require.Equal(t, model.PowerOff, b.PowerState)
	require.Contains(t, b.DetailedStatusMessage, "Retired from the control plane by the re-placement")
	require.Equal(t, "role rack1-mgmt2 kcp-spare", f.log[0])
}
