package invariants

import (
	"slices"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
)

// Hold is a batch the capacity guard held for room (capacityPolicy Pause,
// a shortfall): none of its servers is drained from Since (the upgrade's
// start) until ContinuedAt, the operator's continue-update (nil: never).
type Hold struct {
	Unit        string     `json:"unit"`
	Servers     []string   `json:"servers"`
	Since       time.Time  `json:"since"`
	ContinuedAt *time.Time `json:"continuedAt,omitempty"`
}

// holds are the upgrade's held batches with the servers each kept back
// (older statuses do not name them: then the servers of the rack of that
// name).
func holds(st api.UpgradeStatus) []Hold {
	var out []Hold
	for _, c := range st.Capacity {
		if !c.Held {
			continue
		}
		h := Hold{Unit: c.Unit, Servers: c.Servers, Since: st.StartedAt, ContinuedAt: c.ContinuedAt}
		if u := st.UnitNamed(api.UnitRack, c.Unit); u != nil && len(c.Servers) == 0 {
			for _, s := range u.Servers {
				h.Servers = append(h.Servers, s.Name)
			}
		}
		out = append(out, h)
	}
	return out
}

// roomHolds applies capacity-pause: a cordon or an eviction on a server of a
// held batch before the operator let it go is a drain the guard was there
// to stop.
func (c *checker) roomHolds(e events.Event) {
	if e.Kind != events.Cordon && e.Kind != events.Evict {
		return
	}
	for _, h := range c.st.site.Holds {
		if !slices.Contains(h.Servers, e.BMM) || e.Time.Before(h.Since) || (h.ContinuedAt != nil && !e.Time.Before(*h.ContinuedAt)) {
			continue
		}
		when := "no continue-update came"
		if h.ContinuedAt != nil {
			when = "continue-update came only at " + h.ContinuedAt.UTC().Format(time.RFC3339Nano)
		}
		c.add(RuleCapacityPause, e, "%s of %s while the capacity guard held %s for room (capacityPolicy Pause); %s",
			e.Kind, e.BMM, h.Unit, when)
	}
}
