package api

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/stretchr/testify/require"
)

func threePhaseStatus() UpgradeStatus {
	return UpgradeStatus{
		ControlPlane:     UnitStatus{Name: "control-plane"},
		ManagementGroups: []UnitStatus{{Name: "a"}, {Name: "b"}},
		Racks:            []UnitStatus{{Name: "rack1"}, {Name: "rack2"}},
	}
}

// Units walks the control plane, the groups, the racks, in that order,
// and each points into the status: an update through it is the status's.
func TestUnitsWalkInUpgradeOrderAndUpdateInPlace(t *testing.T) {
	st := threePhaseStatus()
	var order []string
	for _, u := range st.Units() {
		order = append(order, string(u.Kind)+":"+u.Name)
		u.State = StateCancelled
	}
	require.Equal(t, []string{"control-plane:control-plane", "management:a", "management:b", "rack:rack1", "rack:rack2"}, order)
	require.Equal(t, StateCancelled, st.ControlPlane.State)
	require.Equal(t, StateCancelled, st.ManagementGroups[1].State)
	require.Equal(t, StateCancelled, st.Racks[1].State)

	st.UnitNamed(UnitRack, "rack2").State = StateSucceeded
	require.Equal(t, StateSucceeded, st.Racks[1].State)
	require.Nil(t, st.UnitNamed(UnitRack, "a"), "a is a management group, not a rack")
	require.Nil(t, st.UnitNamed(UnitManagement, "c"))
}

// SetUnits lays out the plan's units as the status's three fields, the
// skipped KCP steps already counted.
func TestSetUnitsFromThePlan(t *testing.T) {
	p := upgradeplan.Plan{
		ControlPlane: []upgradeplan.KCPStep{{BMM: "k1", Action: upgradeplan.KCPSwap, Skip: true}, {BMM: "k2", Action: upgradeplan.KCPRetire}},
		Management:   []upgradeplan.Group{{Name: "a", Stages: [][]string{{"m1"}, {"m2"}}, Required: 1}},
		Racks:        []upgradeplan.Rack{{Name: "rack1", Servers: []string{"c1", "c2"}, Required: 2, Parallel: 2}},
	}
	var st UpgradeStatus
	st.SetUnits(p)
	require.Equal(t, "control-plane", st.ControlPlane.Name)
	require.Equal(t, 2, st.ControlPlane.Required)
	require.Equal(t, StateSkipped, st.ControlPlane.StateOf("k1"))
	require.Equal(t, 1, st.ControlPlane.Succeeded)
	require.Len(t, st.ManagementGroups, 1)
	require.Equal(t, []ServerStatus{{Name: "m1", State: StatePending}, {Name: "m2", State: StatePending}}, st.ManagementGroups[0].Servers)
	require.Len(t, st.Racks, 1)
	require.Equal(t, "rack1", st.Racks[0].Name)
	require.Equal(t, 2, st.Racks[0].Total)
}

// The walk adds nothing to the query result older CLIs and recorded
// histories read: the same three fields, no other.
func TestUnitsLeaveTheJSONShapeAlone(t *testing.T) {
	st := threePhaseStatus()
	_ = st.Units()
	b, err := json.Marshal(st)
	require.NoError(t, err)
	var fields map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &fields))
	keys := slices.Sorted(maps.Keys(fields))
	require.Equal(t, []string{"cluster", "controlPlane", "detailedStatus", "detailedStatusMessage", "managementGroups",
		"phase", "racks", "startedAt", "strategy", "targetVersion"}, keys, "the fields without omitempty, as before")
}
