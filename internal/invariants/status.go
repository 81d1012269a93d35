package invariants

import (
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
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
	add := func(u api.UnitStatus, pauseAfter bool) {
		unit := Unit{Name: u.Name, Succeeded: u.Succeeded, Required: u.Required, PauseAfter: pauseAfter, ContinuedAt: u.ContinuedAt}
		for _, sv := range u.Servers {
			unit.Servers = append(unit.Servers, sv.Name)
		}
		s.Units = append(s.Units, unit)
	}
	for _, g := range st.ManagementGroups {
		add(g, false)
	}
	for i, r := range st.Racks {
		add(r, st.Strategy.StrategyType == model.StrategyPauseAfterRack && i < len(st.Racks)-1)
		if c := canaryOf(st); c != nil && c.Rack == r.Name {
			if _, systemic := c.Verdict(r); systemic {
				s.Units = append(s.Units, Unit{Name: r.Name + " canary", Servers: c.Servers, Systemic: true, ContinuedAt: st.CanaryContinuedAt})
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
