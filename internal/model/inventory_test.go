package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestControlPlaneSize(t *testing.T) {
	for _, tc := range []struct{ racks, active, spare int }{
		{0, 0, 0}, {1, 3, 0}, {2, 1, 1}, {3, 3, 1}, {4, 3, 1}, {16, 3, 1},
	} {
		a, s := ControlPlaneSize(tc.racks)
		assert.Equal(t, [2]int{tc.active, tc.spare}, [2]int{a, s}, "%d racks", tc.racks)
	}
}

func TestRoles(t *testing.T) {
	for _, tc := range []struct {
		role            Role
		cp, pool, valid bool
	}{
		{RoleKCP, true, true, true},
		{RoleKCPSpare, true, true, true},
		{RoleManagement, false, true, true},
		{RoleCompute, false, false, true},
		{"", false, false, false},
		{"KCP", false, false, false},
	} {
		assert.Equal(t, tc.cp, tc.role.IsControlPlane(), tc.role)
		assert.Equal(t, tc.pool, tc.role.IsManagementPool(), tc.role)
		assert.Equal(t, tc.valid, tc.role.Valid(), tc.role)
	}
}

func TestServersAndNames(t *testing.T) {
	inv := &Inventory{Racks: []RackSpec{
		{Name: "rack10", Servers: []ServerSpec{{Name: "a", Role: RoleCompute}, {Name: "b", NodeName: "node-b", Role: RoleManagement}}},
		{Name: "rack9"},
		{Name: "rack2", Servers: []ServerSpec{{Name: "c", Role: RoleCompute}}},
	}}
	refs := inv.Servers()
	assert.Equal(t, []ServerRef{
		{Rack: "rack10", Index: 0, Server: inv.Racks[0].Servers[0]},
		{Rack: "rack10", Index: 1, Server: inv.Racks[0].Servers[1]},
		{Rack: "rack2", Index: 0, Server: inv.Racks[2].Servers[0]},
	}, refs)
	assert.Equal(t, "a", NodeNameOf(refs[0].Server))
	assert.Equal(t, "node-b", NodeNameOf(refs[1].Server))
	assert.Equal(t, []string{"rack2", "rack10"}, inv.RackNames(), "natural order, empty racks left out")
	assert.Equal(t, map[string]int{"rack10": 1, "rack2": 1}, inv.ComputeCounts())
}

func TestBMMHealth(t *testing.T) {
	ok := BMM{Name: "m", Roles: []Role{RoleManagement}, ReadyState: ReadyTrue}
	assert.True(t, ok.Healthy())
	assert.True(t, ok.HasRole(RoleManagement))
	assert.False(t, ok.HasRole(RoleKCP))
	notReady := ok
	notReady.ReadyState = ReadyUnknown
	assert.False(t, notReady.Healthy())
	marked := ok
	marked.DetailedStatusMessage = UnhealthyMessage
	assert.False(t, marked.Healthy())

	c := Cluster{BMMs: []BMM{ok}}
	b, found := c.BMM("m")
	assert.True(t, found)
	b.ReadyState = ReadyFalse
	assert.Equal(t, ReadyFalse, c.BMMs[0].ReadyState, "BMM returns a pointer into the ledger")
	_, found = c.BMM("x")
	assert.False(t, found)
}
