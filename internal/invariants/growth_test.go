package invariants

import (
	"testing"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
)

// One rack's three KCPs (two must serve) become two racks' one once a
// second rack is racked: the table for two racks wants one, so two
// demotions break no promise; without the rack joining, the second does.
func TestGrowthLowersTheControlPlaneCount(t *testing.T) {
	site := Site{Roles: map[string]model.Role{"rack1-m1": model.RoleKCP, "rack1-m2": model.RoleKCP, "rack1-m3": model.RoleKCP},
		Racks: map[string]string{"rack1-m1": "rack1", "rack1-m2": "rack1", "rack1-m3": "rack1"}}
	demote := func(l *logb) *logb {
		return l.label("rack1-m2", model.RoleManagement).label("rack1-m3", model.RoleManagement)
	}
	grown := demote(new(logb).ev(events.Racked, "rack2-m1", nil))
	if v := Check(grown.evs, site); len(v) != 0 {
		t.Fatalf("after a second rack joined: %v", v)
	}
	v := Check(demote(new(logb)).evs, site)
	if len(v) != 1 || v[0].Rule != RuleControlPlaneCount || v[0].BMM != "rack1-m3" {
		t.Fatalf("without it: %v; want the second demotion below the site's two", v)
	}
}
