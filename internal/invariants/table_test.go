package invariants

import (
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
)

// tableSite is site() with racks known from the start and the table rule on.
func tableSite(roles map[string]model.Role) Site {
	s := Site{Roles: roles, Racks: map[string]string{}, PlacementTable: true}
	for b := range roles {
		s.Racks[b] = rackOfName(b)
	}
	return s
}

func fourRacks() map[string]model.Role {
	return map[string]model.Role{"rack1-m1": model.RoleKCP, "rack2-m1": model.RoleKCP, "rack3-m1": model.RoleKCP,
		"rack4-m1": model.RoleKCPSpare, "rack1-m2": model.RoleManagement, "rack4-m2": model.RoleManagement}
}

func TestPlacementTable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		roles map[string]model.Role
		log   *logb
		want  string // fragment of the one violation; "" none
	}{
		{"four racks as placed", fourRacks(), new(logb).ev(events.NodeReady, "rack1-m1", nil), ""},
		{"an upgrade's swap and retire keep it", fourRacks(),
			new(logb).reimage("rack4-m1").label("rack4-m1", model.RoleKCP).reimage("rack1-m1").label("rack3-m1", model.RoleKCPSpare), ""},
		{"a re-run that promoted the retired spare: a KCP over, no spare", fourRacks(),
			new(logb).label("rack4-m1", model.RoleKCP),
			"4 active KCPs (rack1-m1, rack2-m1, rack3-m1, rack4-m1), the table wants 3; 0 spares (none), the table wants 1"},
		{"two racks with two KCPs", map[string]model.Role{"rack1-m1": model.RoleKCP, "rack2-m1": model.RoleKCPSpare},
			new(logb).label("rack2-m1", model.RoleKCP), "2 active KCPs (rack1-m1, rack2-m1), the table wants 1"},
		{"the spare beside the KCP while the other rack has none",
			map[string]model.Role{"rack1-m1": model.RoleKCP, "rack1-m2": model.RoleManagement, "rack2-m1": model.RoleKCPSpare, "rack2-c1": model.RoleCompute},
			new(logb).label("rack2-m1", model.RoleManagement).label("rack1-m2", model.RoleKCPSpare),
			"spare rack1-m2 shares rack rack1 with KCP rack1-m1 while a rack has no KCP"},
		{"three racks, two KCPs in one", map[string]model.Role{"rack1-m1": model.RoleKCP, "rack1-m2": model.RoleKCP, "rack2-m1": model.RoleManagement,
			"rack3-m1": model.RoleKCP, "rack2-m2": model.RoleKCPSpare},
			new(logb).ev(events.NodeReady, "rack1-m1", nil),
			"KCPs rack1-m1 and rack1-m2 share rack rack1"},
		{"a KCP deleted after a failover without a spare holds no role", map[string]model.Role{"rack1-m1": model.RoleKCP,
			"rack1-m2": model.RoleKCP, "rack1-m3": model.RoleKCP}, new(logb).ev(events.NodeDeleted, "rack1-m1", nil),
			"2 active KCPs (rack1-m2, rack1-m3), the table wants 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, v := range Check(tc.log.evs, tableSite(tc.roles)) {
				if v.Rule == RulePlacementTable {
					got = append(got, v.Detail)
				}
			}
			if tc.want == "" {
				if len(got) > 0 {
					t.Fatalf("unexpected: %v", got)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("got %q, want one containing %q", got, tc.want)
			}
		})
	}
}
