package invariants

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/stretchr/testify/require"
)

// heldStatus: an upgrade whose capacity guard held rack2 (and management
// group a's first stage) until continuedAt (nil: never let go).
func heldStatus(continuedAt int) api.UpgradeStatus {
	unit := func(name string, servers ...string) api.UnitStatus {
		u := api.UnitStatus{Name: name}
		for _, s := range servers {
			u.Servers = append(u.Servers, api.ServerStatus{Name: s})
		}
		return u
	}
	st := api.UpgradeStatus{TargetVersion: "4.2.0", StartedAt: t0,
		ManagementGroups: []api.UnitStatus{unit("a", "rack1-m2")},
		Racks:            []api.UnitStatus{unit("rack1", "rack1-c1", "rack1-c2"), unit("rack2", "rack2-c1", "rack2-c2")},
		Capacity: []api.CapacityCheck{{Unit: "management group a stage 1", Fits: true},
			{Unit: "rack1", Fits: true}, {Unit: "rack2", Held: true}, {Unit: "management group a stage 1", Held: true, Servers: []string{"rack1-m2"}}}}
	if continuedAt > 0 {
		st.Capacity[2].ContinuedAt, st.Capacity[3].ContinuedAt = tp(continuedAt), tp(continuedAt)
	}
	return st
}

func TestHoldsNameTheirUnitsServers(t *testing.T) {
	hs := holds(heldStatus(0))
	require.Len(t, hs, 2, "only the checks that held a batch")
	require.Equal(t, []string{"rack2-c1", "rack2-c2"}, hs[0].Servers, "a hold that names no servers: its rack's")
	require.Equal(t, []string{"rack1-m2"}, hs[1].Servers, "the servers the hold kept back")
	require.Equal(t, t0, hs[0].Since)
}

func TestCapacityPause(t *testing.T) {
	drainRack2 := func(l *logb) *logb {
		return l.ev(events.Cordon, "rack2-c1", nil).ev(events.Evict, "rack2-c1", map[string]any{"pod": "app-0"})
	}
	for _, c := range []struct {
		name        string
		continuedAt int // 0: never
		log         *logb
		want        int
	}{
		{"drained after continue-update", 3, drainRack2(new(logb).reimage("rack1-c1")), 0},
		{"drained before continue-update", 6, drainRack2(new(logb).reimage("rack1-c1")), 2},
		{"drained with no continue-update", 0, drainRack2(new(logb)), 2},
		{"another rack's drain is not held", 0, new(logb).ev(events.Cordon, "rack1-c1", nil), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Check(c.log.evs, WithUpgrade(site(), heldStatus(c.continuedAt)))
			require.Len(t, got, c.want, "%v", got)
			for _, v := range got {
				require.Equal(t, RuleCapacityPause, v.Rule)
				require.Contains(t, v.Detail, "held rack2 for room")
			}
		})
	}
}

// A hold on a server after its rack's first wave keeps back only that
// server and those after it: the first wave's drain before it is no
// violation.
func TestCapacityPauseOfALaterServer(t *testing.T) {
	st := heldStatus(0)
	st.Capacity = []api.CapacityCheck{{Unit: "rack2 rack2-c2", Held: true, Servers: []string{"rack2-c2"}, ContinuedAt: tp(3)}}
	log := new(logb).ev(events.Cordon, "rack2-c1", nil).ev(events.Cordon, "rack2-c2", nil).ev(events.Cordon, "rack2-c2", nil).
		ev(events.Cordon, "rack2-c2", nil)
	got := Check(log.evs, WithUpgrade(site(), st))
	require.Len(t, got, 2, "rack2-c2 at 1 s and 2 s, before the continue at 3 s: %v", got)
	for _, v := range got {
		require.Equal(t, "rack2-c2", v.BMM)
	}
}
