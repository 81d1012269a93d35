package invariants

import (
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/upgradeplan"
)

// WithUpgrade adds what an upgrade's status (query status, or
// `starter upgrade status -o json`) says to s: its target version, so only
// upgrade reimages count for the rack rules, and its management groups
// and racks with their outcomes, pause-after-rack and the moment the
// operator continued, for the threshold and pause rules, and the batches
// the capacity guard held, for capacity-pause.
func WithUpgrade(s Site, st api.UpgradeStatus) Site {
	s.TargetVersion = st.TargetVersion
	s.Holds = append(s.Holds, holds(st)...)
	units := st.Units()
	for i, u := range units {
		if u.Kind == api.UnitControlPlane {
			continue // no threshold, no pause after it
		}
		unit := Unit{Name: u.Name, Succeeded: u.Succeeded, Required: u.Required,
			PauseAfter: upgradeplan.PausesAfter(st.Strategy, units, i), ContinuedAt: u.ContinuedAt}
		for _, sv := range u.Servers {
			unit.Servers = append(unit.Servers, sv.Name)
		}
		s.Units = append(s.Units, unit)
		if c := canaryOf(st); c != nil && u.Kind == api.UnitRack && c.Rack == u.Name {
			if _, systemic := c.Verdict(*u.UnitStatus); systemic {
				s.Units = append(s.Units, Unit{Name: u.Name + " canary", Servers: c.Servers, Systemic: true, ContinuedAt: st.CanaryContinuedAt})
			}
		}
	}
	return s
}

// WithRemediation adds a remediation as its status reports it (query
// status, or `starter remediation show -o json`), for the storm guard and
// ladder rules.
func WithRemediation(s Site, st api.RemediationStatus) Site {
	r := Remediation{BMM: st.BMM, Role: st.Role, StartedAt: st.StartedAt, FinishedAt: st.FinishedAt}
	for _, step := range st.Steps {
		r.Steps = append(r.Steps, string(step.Step))
	}
	s.Remediations = append(s.Remediations, r)
	return s
}

func canaryOf(st api.UpgradeStatus) *upgradeplan.Canary {
	if st.Plan == nil {
		return nil
	}
	return st.Plan.Canary
}
