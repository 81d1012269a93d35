package api

import "github.com/rackroll/rackroll/internal/upgradeplan"

// The unit walk's element and kinds (upgradeplan.Unit).
type (
	Unit     = upgradeplan.Unit
	UnitKind = upgradeplan.UnitKind
)

const (
	UnitControlPlane = upgradeplan.UnitControlPlane
	UnitManagement   = upgradeplan.UnitManagement
	UnitRack         = upgradeplan.UnitRack
)

// Units walks the status's units in upgrade order: the control plane, each
// management group, each compute rack. Each points into s, so a caller may
// update it in place (walk a copy to leave s alone). It is the one place
// that spells the order out; the JSON keeps its three fields.
func (s *UpgradeStatus) Units() []Unit {
	out := make([]Unit, 0, 1+len(s.ManagementGroups)+len(s.Racks))
	out = append(out, Unit{Kind: UnitControlPlane, UnitStatus: &s.ControlPlane})
	for i := range s.ManagementGroups {
		out = append(out, Unit{Kind: UnitManagement, UnitStatus: &s.ManagementGroups[i]})
	}
	for i := range s.Racks {
		out = append(out, Unit{Kind: UnitRack, UnitStatus: &s.Racks[i]})
	}
	return out
}

// UnitNamed is the unit of kind named name, nil when there is none.
func (s *UpgradeStatus) UnitNamed(kind UnitKind, name string) *UnitStatus {
	for _, u := range s.Units() {
		if u.Kind == kind && u.Name == name {
			return u.UnitStatus
		}
	}
	return nil
}

// SetUnits gives s the units of plan p, in its order, none started: the
// KCP steps with nothing to do are Skipped (counted as upgraded).
func (s *UpgradeStatus) SetUnits(p upgradeplan.Plan) {
	s.ManagementGroups, s.Racks = nil, nil
	for _, pu := range p.Units() {
		u := pu.Status()
		switch pu.Kind {
		case UnitControlPlane:
			s.ControlPlane = u
		case UnitManagement:
			s.ManagementGroups = append(s.ManagementGroups, u)
		case UnitRack:
			s.Racks = append(s.Racks, u)
		}
	}
}
