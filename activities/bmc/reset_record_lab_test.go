package bmc

import (
	"testing"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A reset is recorded with Temporal before it is sent, as an update is:
// a restart that waited for the host's shutdown first may have its plain
// heartbeat still in the SDK's batch when its worker dies, and the retry
// would reset the machine a second time.
func TestLabTheResetIsRecordedWithTemporalBeforeItIsSent(t *testing.T) {
	l := newLab(t, redfishtest.Profile("idrac9"))
	rec := &recorder{l: l}
	l.a.Heartbeats = rec
	_, err := l.env.ExecuteActivity(l.a.Restart, l.ep)
	require.NoError(t, err)
	issued := rec.first(t, "of the reset", func(p progress) bool { return p.ResetIssued })
	assert.NotEmpty(t, issued.ResetType)
	assert.Zero(t, issued.resets, "recorded before the reset went out")
	assert.Positive(t, l.count(events.Reset)+l.count(events.PowerOn)+l.count(events.PowerOff), "the restart was sent")

	// A client that cannot record: no reset is sent.
	l2 := newLab(t, redfishtest.Profile("idrac9"))
	l2.a.Heartbeats = failingRecorder{}
	_, err = l2.env.ExecuteActivity(l2.a.Restart, l2.ep)
	require.ErrorContains(t, err, "record progress with Temporal")
	assert.Zero(t, l2.count(events.Reset)+l2.count(events.PowerOn)+l2.count(events.PowerOff))
}
