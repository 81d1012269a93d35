package upgradeplan

import (
	"slices"

	"github.com/rackroll/rackroll/internal/model"
)

// UnitKind is the phase a unit of an upgrade belongs to.
type UnitKind string

// The three kinds, in the order an upgrade runs them.
const (
	UnitControlPlane UnitKind = "control-plane"
	UnitManagement   UnitKind = "management"
	UnitRack         UnitKind = "rack"
)

// ControlPlaneUnit is the name of the control plane's unit.
const ControlPlaneUnit = "control-plane"

// Unit is one unit of an upgrade's status as its walk (api.UpgradeStatus
// Units) yields it: its kind, and its status as a pointer into the status
// walked, so a caller may update it in place.
type Unit struct {
	Kind UnitKind
	*UnitStatus
}

// Label is how the operator's texts name the unit: "control plane",
// "management group a", "rack rack1".
func (u Unit) Label() string {
	switch u.Kind {
	case UnitControlPlane:
		return "control plane"
	case UnitManagement:
		return "management group " + u.Name
	}
	return "rack " + u.Name
}

// PausesAfter reports whether the upgrade pauses by strategy s after
// units[i] of a walk of the units: after each rack but the last under
// PauseAfterRack (UnitStatus.PauseAfter, the rule the workflow follows).
func PausesAfter(s model.UpdateStrategy, units []Unit, i int) bool {
	if units[i].Kind != UnitRack || i == len(units)-1 {
		return false
	}
	return units[i].PauseAfter(s, units[i+1].Name) != ""
}

// PlanUnit is one unit of a plan as Plan.Units yields it: what its status
// starts from, what it reimages and its share of the critical path.
type PlanUnit struct {
	Kind     UnitKind
	Name     string
	Servers  []string // in the order its status lists them
	Required int      // how many of Servers must succeed
	// Skip are the servers with nothing to do (skipped KCP steps): they
	// start Skipped, counted as upgraded.
	Skip []string
	// Reimage are the servers it may reimage: all but the skipped KCP
	// steps and the retire (the retired KCP keeps its version).
	Reimage []string
	// Rounds is how many server upgrades follow one another in it: a KCP
	// step each, a management stage each, a rack wave each (the canary is
	// one wave of its own).
	Rounds int
}

// Units walks the plan in upgrade order: the control plane (always, even
// with no step), each management group, each compute rack. It is the one
// place that knows how each phase's shape maps to a unit.
func (p Plan) Units() []PlanUnit {
	cp := PlanUnit{Kind: UnitControlPlane, Name: ControlPlaneUnit}
	for _, k := range p.ControlPlane {
		cp.Servers = append(cp.Servers, k.BMM)
		switch {
		case k.Skip:
			cp.Skip = append(cp.Skip, k.BMM)
		case k.Action != KCPRetire:
			cp.Reimage = append(cp.Reimage, k.BMM)
		}
	}
	cp.Required, cp.Rounds = len(cp.Servers), len(cp.Reimage)
	out := []PlanUnit{cp}
	for _, g := range p.Management {
		servers := slices.Concat(g.Stages...)
		out = append(out, PlanUnit{Kind: UnitManagement, Name: g.Name, Servers: servers, Required: g.Required,
			Reimage: servers, Rounds: len(g.Stages)})
	}
	for _, r := range p.Racks {
		out = append(out, PlanUnit{Kind: UnitRack, Name: r.Name, Servers: r.Servers, Required: r.Required,
			Reimage: r.Servers, Rounds: p.waves(r)})
	}
	return out
}

// waves is how many waves rack r runs: ceil(servers/parallel), plus one
// for the canary when r holds it.
func (p Plan) waves(r Rack) int {
	per := max(r.Parallel, 1)
	if p.Canary != nil && p.Canary.Rack == r.Name {
		_, rest := p.Canary.Split(r)
		return 1 + (len(rest.Servers)+r.Parallel-1)/per
	}
	return (len(r.Servers) + r.Parallel - 1) / per
}

// Status is the unit's status before any of its servers starts.
func (u PlanUnit) Status() UnitStatus {
	s := NewUnit(u.Name, u.Servers, u.Required)
	for _, n := range u.Skip {
		s.Apply(ServerStatus{Name: n, State: StateSkipped})
	}
	return s
}
