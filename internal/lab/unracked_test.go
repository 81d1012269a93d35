package lab

import (
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// threeRacks is four-rack.yaml without rack4, one compute a rack.
func threeRacks(t *testing.T) *model.Inventory {
	t.Helper()
	inv, err := model.LoadInventory("../../examples/four-rack.yaml")
	require.NoError(t, err)
	inv.Racks = inv.Racks[:3]
	for i, r := range inv.Racks {
		var keep []model.ServerSpec
		for _, s := range r.Servers {
			if s.Role != model.RoleCompute || len(keep) < 3 {
				keep = append(keep, s)
			}
		}
		inv.Racks[i].Servers = keep
	}
	return inv
}

func TestUnrackedIsChecked(t *testing.T) {
	for _, tc := range []struct {
		name            string
		unracked        []string
		edit            func(inv *model.Inventory)
		field, value    string
		messageContains string
	}{
		{name: "unknown name", unracked: []string{"rack9"}, field: "lab.unracked[0]", value: "rack9", messageContains: "unknown rack or BMM"},
		{name: "twice", unracked: []string{"rack3", "rack3"}, field: "lab.unracked[1]", value: "rack3", messageContains: "listed twice"},
		{name: "a pinned KCP racked later", unracked: []string{"rack3-mgmt1"},
			edit:  func(inv *model.Inventory) { inv.Racks[2].Servers[0].Role = model.RoleKCP },
			field: "racks[2].servers[0].role", value: "kcp", messageContains: "allowed are management, compute"},
		{name: "nothing racked", unracked: []string{"rack1", "rack2", "rack3"}, field: "lab.unracked", messageContains: "leave at least one rack racked"},
		{name: "racked site cannot be placed", unracked: []string{"rack1-mgmt1", "rack1-mgmt2", "rack1-mgmt3", "rack2-mgmt1", "rack2-mgmt2", "rack3"},
			field: "lab.unracked", messageContains: "cannot be placed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := threeRacks(t)
			if tc.edit != nil {
				tc.edit(inv)
			}
			put(t, inv, Section{Lab: &Spec{Unracked: tc.unracked}})
			err := Validate(inv)
			require.Error(t, err)
			var hit bool
			for _, p := range problems(t, err) {
				if p.Field == tc.field && p.Value == tc.value {
					hit = true
					assert.Contains(t, p.Message, tc.messageContains)
				}
			}
			assert.True(t, hit, "want a problem at %s=%q, got %v", tc.field, tc.value, err)
		})
	}
	inv := threeRacks(t)
	put(t, inv, Section{Lab: &Spec{Unracked: []string{"rack3", "rack2-c1"}, BMCProfiles: map[string]string{"rack3": "ilo5"}}})
	require.NoError(t, Validate(inv))
}

// The servers racked later join as a registration places a joining server:
// management in a group of their rack, or compute, never the control plane.
// The site racked at start is placed as a two-rack site.
func TestServersRackedLaterJoinAsManagementOrCompute(t *testing.T) {
	inv := threeRacks(t)
	later := (&Spec{Unracked: []string{"rack3"}}).unrackedNames(inv)
	require.Len(t, later, 3)
	racked := rackedInventory(inv, later)
	require.Len(t, racked.Racks, 2)
	placed, err := placement.Place(racked)
	require.NoError(t, err)
	kcps := 0
	for _, a := range placed {
		if a.Role == model.RoleKCP {
			kcps++
		}
	}
	assert.Equal(t, 1, kcps, "two racks: one active KCP")
	joins := joinRoles(inv, placed, later)
	require.Len(t, joins, 3)
	for _, j := range joins {
		assert.Equal(t, "rack3", j.Rack)
		if j.Name == "rack3-mgmt1" || j.Name == "rack3-mgmt2" {
			assert.Equal(t, model.RoleManagement, j.Role, j.Name)
			assert.NotEmpty(t, j.ManagementGroup, j.Name)
		} else {
			assert.Equal(t, model.RoleCompute, j.Role, j.Name)
		}
	}
}

// The out-inventory lists the racked servers only, so its lab section keeps
// only what names them, and nothing is unracked there.
func TestOnlyKeepsTheEntriesOfThePresentServers(t *testing.T) {
	s := &Spec{Unracked: []string{"rack3"}, BMCProfiles: map[string]string{"rack3": "ilo5", "rack1": "xcc"},
		TenantLoad: map[string]float64{"rack3-c1": 0.5}, Faults: []Fault{{BMM: "rack3-c1", Kind: "bmc-5xx"}, {BMM: "rack1-c1", Kind: "bmc-5xx"}}}
	got := s.only(map[string]bool{"rack1": true, "rack1-c1": true})
	assert.Nil(t, got.Unracked)
	assert.Equal(t, map[string]string{"rack1": "xcc"}, got.BMCProfiles)
	assert.Empty(t, got.TenantLoad)
	assert.Equal(t, []Fault{{BMM: "rack1-c1", Kind: "bmc-5xx"}}, got.Faults)
	assert.Len(t, s.Unracked, 1, "the lab's own section is unchanged")
}
