package invariants

import (
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
)

// placementTable checks, at e (the end of the log, no operation running),
// that the roles are the placement table (docs/behaviour.md#placement) for the site's rack count: its
// active KCPs and spare, the KCPs in different racks when there are three
// racks or more, and the spare outside the KCPs' racks when a rack is left
// for it. A deleted node's BMM is out of service and holds no role.
func (c *checker) placementTable(e events.Event) {
	st := c.st
	racks := map[string]bool{}
	var kcps, spares []string
	for b, r := range st.role {
		if rack := st.rack[b]; rack != "" {
			racks[rack] = true
		}
		if st.deleted[b] {
			continue
		}
		switch r {
		case model.RoleKCP:
			kcps = append(kcps, b)
		case model.RoleKCPSpare:
			spares = append(spares, b)
		}
	}
	model.SortNatural(kcps)
	model.SortNatural(spares)
	active, spare := model.ControlPlaneSize(len(racks))
	var bad []string
	if len(kcps) != active {
		bad = append(bad, fmt.Sprintf("%d active KCPs (%s), the table wants %d", len(kcps), list(kcps), active))
	}
	if len(spares) != spare {
		bad = append(bad, fmt.Sprintf("%d spares (%s), the table wants %d", len(spares), list(spares), spare))
	}
	kcpRack := map[string]string{}
	for _, k := range kcps {
		if other, dup := kcpRack[st.rack[k]]; dup && len(racks) >= 3 {
			bad = append(bad, fmt.Sprintf("KCPs %s and %s share rack %s", other, k, st.rack[k]))
		}
		kcpRack[st.rack[k]] = k
	}
	if len(racks) > len(kcpRack) {
		for _, s := range spares {
			if k, shared := kcpRack[st.rack[s]]; shared {
				bad = append(bad, fmt.Sprintf("spare %s shares rack %s with KCP %s while a rack has no KCP", s, st.rack[s], k))
			}
		}
	}
	if len(bad) > 0 {
		c.add(RulePlacementTable, e, "with no operation running, the roles are not the table for %d racks: %s", len(racks), strings.Join(bad, "; "))
	}
}

func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
