package redfish

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pending counts timers not yet fired or stopped.
func (c *manualClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.stopped && !t.done {
			n++
		}
	}
	return n
}

// A slow profile's media action answers only after 20–40 s, carries out
// the action then, and a second action waits for the first; reads are not
// held and show the state before the action.
func TestSlowMediaActionsTakeTwentyToFortySeconds(t *testing.T) {
	r := newRig(t, profile("idrac9-slow"))
	slot := r.b.paths.sysMedia + "/1"
	answered := make(chan int, 2)
	go func() { answered <- r.do(http.MethodPost, slot+insertAction, map[string]any{"Image": installer}).code }()
	require.Eventually(t, func() bool { return r.clk.pending() == 1 }, 5*time.Second, time.Millisecond, "the insert is held")
	go func() { answered <- r.do(http.MethodPost, slot+ejectAction, nil).code }()

	r.clk.Advance(19 * time.Second)
	assert.Empty(t, answered, "no answer before 20 s")
	assert.Equal(t, false, r.do(http.MethodGet, slot, nil).body["Inserted"], "a read during the action shows the state before it")
	r.clk.Advance(21 * time.Second)
	require.Equal(t, http.StatusNoContent, <-answered, "the insert answered within 40 s")
	assert.Equal(t, installer, r.do(http.MethodGet, slot, nil).body["Image"], "and was carried out")

	// The eject waited for the insert; it takes its own 20–40 s.
	require.Eventually(t, func() bool { return r.clk.pending() == 1 }, 5*time.Second, time.Millisecond, "the eject is held after the insert")
	r.clk.Advance(19 * time.Second)
	assert.Empty(t, answered)
	r.clk.Advance(21 * time.Second)
	require.Equal(t, http.StatusNoContent, <-answered)
	r.do(http.MethodGet, slot, nil) // iDRAC's stale read after an eject
	assert.Equal(t, false, r.do(http.MethodGet, slot, nil).body["Inserted"])
}

// The lab's timings scale a slow profile down; a quick profile stays quick.
func TestMediaTimingScalesOnlySlowProfiles(t *testing.T) {
	scaled := newRig(t, profile("idrac9-slow"), func(c *Config) { c.Timings.Media = 50 * time.Millisecond })
	assert.Equal(t, 50*time.Millisecond, scaled.b.Profile().MediaDelay)
	quick := newRig(t, profile("idrac9"), func(c *Config) { c.Timings.Media = 50 * time.Millisecond })
	assert.Zero(t, quick.b.Profile().MediaDelay)
	slot := quick.b.paths.sysMedia + "/1"
	assert.Equal(t, http.StatusNoContent, quick.do(http.MethodPost, slot+insertAction, map[string]any{"Image": installer}).code,
		"answered at once, with no clock advanced")
}
