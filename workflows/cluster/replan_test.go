package cluster

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// withRack3 is inv grown by rack3 (two management servers, one compute).
func withRack3(inv model.Inventory) model.Inventory {
	inv.Racks = append(append([]model.RackSpec(nil), inv.Racks...), model.RackSpec{Name: "rack3", Servers: []model.ServerSpec{
		{Name: "rack3-mgmt1", Role: model.RoleManagement}, {Name: "rack3-mgmt2", Role: model.RoleManagement},
		{Name: "rack3-c1", Role: model.RoleCompute}}})
	return inv
}

func rolesOf(st api.ClusterState) map[model.Role][]string {
	out := map[model.Role][]string{}
	for _, b := range st.Cluster.BMMs {
		out[b.Roles[0]] = append(out[b.Roles[0]], b.Name)
	}
	return out
}

// Growing two racks to three: the new servers join as management and
// compute, even though placing the new inventory on its own would make
// rack3-mgmt1 a KCP; the control plane is the re-placement's to change.
// Dropping the spare's rack is refused with the reason, and writes nothing.
func TestClusterRegisterReplans(t *testing.T) {
	env := wftest.NewEnv()
	in := exampleInput(t, "two-rack.yaml")
	grown := withRack3(in.Inventory)
	fresh, err := placement.Place(&grown)
	require.NoError(t, err)
	shrunk := in.Inventory
	shrunk.Racks = shrunk.Racks[:1]

	var grow, drop wftest.UpdateResult
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateRegister, "grow", &grow, api.RegisterRequest{Inventory: grown, Placement: fresh})
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		wftest.SendUpdate(env, api.UpdateRegister, "drop", &drop, api.RegisterRequest{Inventory: shrunk, Placement: fresh})
	}, 2*time.Second)
	after := runUntil(t, env, in, 3*time.Second)

	require.NoError(t, grow.Rejected)
	require.NoError(t, grow.Err)
	roles := rolesOf(after)
	require.Equal(t, []string{"rack1-mgmt1"}, roles[model.RoleKCP], "no KCP joins by registration")
	require.Equal(t, []string{"rack2-mgmt1"}, roles[model.RoleKCPSpare])
	b, _ := after.Cluster.BMM("rack3-mgmt1")
	require.Equal(t, []model.Role{model.RoleManagement}, b.Roles)
	require.NotEmpty(t, b.ManagementGroup)
	c, _ := after.Cluster.BMM("rack3-c1")
	require.Equal(t, []model.Role{model.RoleCompute}, c.Roles)

	require.Error(t, drop.Rejected)
	require.Contains(t, drop.Rejected.Error(), "the inventory drops the spare rack2-mgmt1 of rack rack2")
	require.Len(t, after.Cluster.BMMs, 15, "the refused registration wrote nothing")
}
