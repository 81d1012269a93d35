package upgradeplan

import (
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
	"github.com/stretchr/testify/require"
)

func TestCanaryIsTheFirstServersStillToReimage(t *testing.T) {
	c := modeltest.Cluster("r1-c1:compute", "r1-c2:compute", "r1-c3:compute", "r2-c1:compute", "r2-c2:compute")
	for i := range c.BMMs {
		c.BMMs[i].Rack = c.BMMs[i].Name[:2]
	}
	rs := racks(c, model.UpdateStrategy{}, "4.2.0")
	require.Equal(t, &Canary{Rack: "r1", Servers: []string{"r1-c1", "r1-c2"}}, canaryOf(c, rs, 2, "4.2.0"))
	require.Nil(t, canaryOf(c, rs, 0, "4.2.0"), "0 turns it off")
	require.Nil(t, canaryOf(c, rs, 4, "4.2.0"), "the first rack has fewer than k to reimage")

	// A re-run: r1 is done but for r1-c3, r2 not started: r1-c3 alone is
	// fewer than two, so no canary.
	for i := range c.BMMs {
		if c.BMMs[i].Rack == "r1" && c.BMMs[i].Name != "r1-c3" {
			c.BMMs[i].RuntimeVersion = "4.2.0"
		}
	}
	require.Nil(t, canaryOf(c, rs, 2, "4.2.0"))
	require.Equal(t, &Canary{Rack: "r1", Servers: []string{"r1-c3"}}, canaryOf(c, rs, 1, "4.2.0"))
}

func TestCanarySplitKeepsOrderAndParallelism(t *testing.T) {
	r := Rack{Name: "r1", Servers: []string{"a", "b", "c", "d"}, Required: 3, Parallel: 3}
	first, rest := Canary{Rack: "r1", Servers: []string{"a", "b"}}.Split(r)
	require.Equal(t, Rack{Name: "r1", Servers: []string{"a", "b"}, Parallel: 2}, first)
	require.Equal(t, Rack{Name: "r1", Servers: []string{"c", "d"}, Required: 3, Parallel: 3}, rest)
	first, _ = Canary{Rack: "r1", Servers: []string{"a", "b"}}.Split(Rack{Name: "r1", Servers: []string{"a", "b", "c"}, Parallel: 1})
	require.Equal(t, 1, first.Parallel, "maxUnavailable 1: the canary goes one at a time too")
}

func TestCanaryVerdict(t *testing.T) {
	can := Canary{Rack: "r1", Servers: []string{"a", "b"}}
	unit := func(ss ...ServerStatus) UnitStatus {
		u := NewUnit("r1", []string{"a", "b", "c"}, 0)
		u.Apply(ss...)
		return u
	}
	fail := func(n, step string) ServerStatus { return ServerStatus{Name: n, State: StateFailed, Step: step} }

	msg, systemic := can.Verdict(unit(fail("a", "reimage"), fail("b", "reimage")))
	require.True(t, systemic)
	for _, want := range []string{"a, b", "reimage", "systemic", "no other compute server was started", "continue-update"} {
		require.Contains(t, msg, want)
	}
	msg, systemic = can.Verdict(unit(fail("a", "reimage"), fail("b", "drain")))
	require.False(t, systemic, msg)
	require.Contains(t, msg, "different steps")
	msg, systemic = can.Verdict(unit(fail("a", "reimage"), ServerStatus{Name: "b", State: StateSucceeded}))
	require.False(t, systemic, msg)
	require.Contains(t, msg, "b succeeded")
	_, systemic = can.Verdict(unit(fail("a", ""), fail("b", "")))
	require.False(t, systemic, "a failure with no step (an older history) is no pattern")
}
