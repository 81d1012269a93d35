package upgradeplan

import (
	"fmt"
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

// The plan's walk is the upgrade's order: the control plane, group a then
// b, the racks in natural order; each unit says what its status starts
// from, what it reimages and its rounds on the critical path.
func TestPlanUnitsWalkTheUpgradeInOrder(t *testing.T) {
	p, err := Build(site(), "4.2.0", model.UpdateStrategy{}, false)
	require.NoError(t, err)
	p.ControlPlane[1].Skip = true // as a resumed upgrade finds a swapped KCP
	var order []string
	for _, u := range p.Units() {
		order = append(order, fmt.Sprintf("%s:%s", u.Kind, u.Name))
	}
	require.Equal(t, []string{"control-plane:control-plane", "management:a", "management:b",
		"rack:rack1", "rack:rack2", "rack:rack3", "rack:rack10"}, order)

	units := p.Units()
	cp := units[0]
	require.Equal(t, []string{"rack10-mgmt1", "rack1-mgmt1", "rack2-mgmt1", "rack3-mgmt1"}, cp.Servers)
	require.Equal(t, 4, cp.Required, "every KCP step must succeed")
	require.Equal(t, []string{"rack1-mgmt1"}, cp.Skip)
	require.Equal(t, []string{"rack10-mgmt1", "rack2-mgmt1"}, cp.Reimage, "neither the skipped step nor the retire reimages")
	require.Equal(t, 2, cp.Rounds)

	a := units[1]
	require.Equal(t, []string{"rack1-mgmt2", "rack1-mgmt3", "rack3-mgmt2"}, a.Servers, "both stages, in order")
	require.Equal(t, 2, a.Required)
	require.Equal(t, a.Servers, a.Reimage)
	require.Equal(t, 2, a.Rounds, "one round a stage")

	// rack1 holds the canary (two servers), then its five others at once.
	require.Equal(t, 2, units[3].Rounds)
	require.Equal(t, 1, units[4].Rounds)
	require.Equal(t, 6, units[4].Required)
}

// A plan without KCP steps still walks a control-plane unit first: the
// status always has one.
func TestPlanUnitsAlwaysStartWithTheControlPlane(t *testing.T) {
	units := Plan{Racks: []Rack{{Name: "r1", Servers: []string{"s1"}, Required: 1, Parallel: 1}}}.Units()
	require.Len(t, units, 2)
	require.Equal(t, UnitControlPlane, units[0].Kind)
	require.Equal(t, ControlPlaneUnit, units[0].Name)
	require.Empty(t, units[0].Servers)
	require.Zero(t, units[0].Rounds)
}

// A unit's first status lists its servers Pending, the skipped KCP steps
// Skipped and counted as upgraded.
func TestPlanUnitStatusStartsWithTheSkippedCounted(t *testing.T) {
	u := PlanUnit{Name: ControlPlaneUnit, Servers: []string{"k1", "k2", "k3"}, Required: 3, Skip: []string{"k2"}}.Status()
	require.Equal(t, []ServerStatus{{Name: "k1", State: StatePending}, {Name: "k2", State: StateSkipped}, {Name: "k3", State: StatePending}}, u.Servers)
	require.Equal(t, StatePending, u.State)
	require.Equal(t, 3, u.Total)
	require.Equal(t, 1, u.Succeeded)
	require.Equal(t, 1, u.Skipped)
}

// Under PauseAfterRack the upgrade pauses after each rack but the last,
// never after the control plane or a management group.
func TestPausesAfterEachRackButTheLast(t *testing.T) {
	unit := func(kind UnitKind, name string) Unit { return Unit{Kind: kind, UnitStatus: &UnitStatus{Name: name}} }
	units := []Unit{unit(UnitControlPlane, ControlPlaneUnit), unit(UnitManagement, "a"), unit(UnitRack, "rack1"), unit(UnitRack, "rack2")}
	pause := model.UpdateStrategy{StrategyType: model.StrategyPauseAfterRack}
	var got []bool
	for i := range units {
		got = append(got, PausesAfter(pause, units, i))
	}
	require.Equal(t, []bool{false, false, true, false}, got)
	require.False(t, PausesAfter(model.UpdateStrategy{}, units, 2), "strategy Rack goes straight on")
}

func TestUnitLabelNamesItsKind(t *testing.T) {
	var got []string
	for _, u := range []Unit{{UnitControlPlane, &UnitStatus{Name: ControlPlaneUnit}}, {UnitManagement, &UnitStatus{Name: "a"}}, {UnitRack, &UnitStatus{Name: "rack1"}}} {
		got = append(got, u.Label())
	}
	require.Equal(t, []string{"control plane", "management group a", "rack rack1"}, got)
}
