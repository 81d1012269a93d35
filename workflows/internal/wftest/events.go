package wftest

import (
	"sync"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"go.temporal.io/sdk/testsuite"
)

// eventRecorder turns the fake site's effects into the lab's event log, on
// the test environment's clock, so internal/invariants can check a run of
// the SDK test environment exactly as it checks a lab run.
type eventRecorder struct {
	mu  sync.Mutex
	env *testsuite.TestWorkflowEnvironment
	evs []events.Event
}

func RecordEvents(env *testsuite.TestWorkflowEnvironment, f *FakeSite) *eventRecorder {
	r := &eventRecorder{env: env}
	f.Emit = func(kind, bmm, rack string, detail map[string]any) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.evs = append(r.evs, events.Event{Time: env.Now(), Kind: kind, BMM: bmm, Rack: rack, Detail: detail})
	}
	return r
}

func (r *eventRecorder) Events() []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]events.Event(nil), r.evs...)
}

// SiteOf describes the fake site as it is now (call before the run): the
// roles placement gave and the racks.
func SiteOf(f *FakeSite, target string) invariants.Site {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	s := invariants.Site{Roles: map[string]model.Role{}, Racks: map[string]string{}, TargetVersion: target}
	for _, b := range f.St.Cluster.BMMs {
		s.Roles[b.Name], s.Racks[b.Name] = b.Roles[0], b.Rack
	}
	return s
}

// UnitsOf turns an upgrade's final status into the units whose pauses the
// invariants check: management groups and racks, with when continue-update
// released each (continued, by unit name).
func UnitsOf(st api.UpgradeStatus, continued map[string]invariants.Unit) []invariants.Unit {
	var out []invariants.Unit
	units := st.Units()
	for i, u := range units {
		if u.Kind == api.UnitControlPlane {
			continue // no threshold, no pause after it
		}
		iu := invariants.Unit{Name: u.Name, Succeeded: u.Succeeded, Required: u.Required, PauseAfter: upgradeplan.PausesAfter(st.Strategy, units, i),
			ContinuedAt: continued[u.Name].ContinuedAt}
		for _, s := range u.Servers {
			iu.Servers = append(iu.Servers, s.Name)
		}
		out = append(out, iu)
	}
	return out
}

// PausedUnit names the unit an upgrade is paused at: the one marked Paused
// (missed threshold), else the last rack that finished (PauseAfterRack).
func PausedUnit(st api.UpgradeStatus) string {
	last := ""
	for _, u := range st.Units() {
		switch {
		case u.Kind == api.UnitControlPlane: // its gate pauses are not checked here
		case u.State == api.StatePaused:
			return u.Name
		case u.Kind == api.UnitRack && u.FinishedAt != nil:
			last = u.Name
		}
	}
	return last
}
