package redfish

import (
	"net/http"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The lab plays BMCs that answer and do not do (docs/evidence.md).

func TestResetIgnoredIsAnsweredAndDoesNothing(t *testing.T) {
	r := newRig(t)
	r.b.SetFault(faults.ResetIgnored, 0)
	for _, rt := range []string{"ForceRestart", "ForceOff", "GracefulShutdown"} {
		assert.Equal(t, http.StatusNoContent, r.reset(rt).code, rt)
	}
	r.clk.Advance(time.Hour)
	assert.Equal(t, "On", r.system()["PowerState"])
	assert.Equal(t, State{Power: "On", OSRunning: true, RuntimeVersion: "4.1.2"}, r.b.State())
	assert.Zero(t, r.count(events.Reset)+r.count(events.PowerOff))

	r.b.ClearFault(faults.ResetIgnored)
	require.Equal(t, http.StatusAccepted, r.reset("ForceRestart").code)
	assert.Equal(t, "PoweringOff", r.system()["PowerState"])
}

func TestMediaUnmountableAcceptsAndNeverMounts(t *testing.T) {
	r := newRig(t)
	r.b.SetFault(faults.MediaUnmount, 0)
	rep := r.do(http.MethodPost, sysCDPath+insertAction, map[string]any{"Image": "http://images.lab/rackroll-4.2.0.iso"})
	require.Less(t, rep.code, 300, "the insert is answered")
	slot := r.do(http.MethodGet, sysCDPath, nil)
	assert.Nil(t, slot.body["Image"])
	assert.Equal(t, false, slot.body["Inserted"])
	assert.Zero(t, r.count(events.MediaInsert))
}

func TestLaggingProfileShowsTheResetAfterItsAnswer(t *testing.T) {
	r := newRig(t, func(c *Config) { c.Profile = "idrac9-lagging" })
	rep := r.reset("ForceRestart")
	require.Equal(t, http.StatusNoContent, rep.code)
	assert.Equal(t, "On", r.system()["PowerState"], "answered, not yet shown")
	r.clk.Advance(2 * time.Second)
	assert.Equal(t, "On", r.system()["PowerState"])
	r.clk.Advance(time.Second)
	assert.Equal(t, "PoweringOff", r.system()["PowerState"])
}
