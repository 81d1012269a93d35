package bmc

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The evidence rule against the lab's BMCs over HTTP.

func (l *labRig) restart() (PowerResult, error) {
	l.t.Helper()
	val, err := l.env.ExecuteActivity(l.a.Restart, l.ep)
	var res PowerResult
	if err == nil {
		require.NoError(l.t, val.Get(&res))
	}
	return res, err
}

func TestLabRestartWaitsForTheLaggingReset(t *testing.T) {
	l := newLab(t, redfishtest.Profile("idrac9-lagging"))
	start := time.Now()
	res, err := l.restart()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), 3*time.Second, "not before the reset showed")
	assert.Contains(t, []string{"PowerState PoweringOff", "PowerState Off", "PowerState PoweringOn"}, res.Evidence,
		"the cycle was seen (which phase depends on the poll)")
	assert.Equal(t, "204", res.Answer)
	assert.Equal(t, 1, l.count(events.Reset))
}

func TestLabResetIgnored(t *testing.T) {
	l := newLab(t)
	l.bmc.SetFault(faults.ResetIgnored, 0)
	l.a.ResetEvidenceTimeout = 50 * time.Millisecond
	res, err := l.restart()
	require.NoError(t, err)
	assert.True(t, res.Unconfirmed)
	assert.Contains(t, res.Detail, "accepted ForceRestart (204) but showed no change within 50ms: PowerState On")

	_, err = l.reimage("4.2.0")
	ae := appError(t, err, ErrTypeNoEffect, false)
	assert.Contains(t, ae.Error(), "accepted ForceRestart twice (204)")
	assert.Zero(t, l.bmc.State().ReimageCount)
}

func TestLabMediaUnmountable(t *testing.T) {
	l := newLab(t)
	l.bmc.SetFault(faults.MediaUnmount, 0)
	l.a.MediaTimeout = 50 * time.Millisecond
	_, err := l.reimage("4.2.0")
	ae := appError(t, err, ErrTypeNoEffect, false)
	assert.Contains(t, ae.Error(), "the installer was not mounted: the BMC accepted http://images.lab/rackroll-4.2.0.iso for /redfish/v1/Systems/System.Embedded.1/VirtualMedia/1")
	assert.Contains(t, ae.Error(), "check that the BMC can reach the image server")
	assert.Zero(t, l.count(events.Reset), "no reset into an installer that is not there")
}

// sushy-tools keeps a one-time boot Continuous: the reimage says so, and
// the eject clears it, so the next restart boots the disk, not the
// installer again.
func TestLabContinuousOverrideNeverBootsTheInstallerTwice(t *testing.T) {
	l := newLab(t, redfishtest.Profile("sushy"))
	res, err := l.reimage("4.2.0")
	require.NoError(t, err)
	assert.Equal(t, "Continuous", res.BootOverride)
	l.settled("4.2.0")
	require.NoError(t, l.eject("4.2.0"))
	var last map[string]any
	for _, e := range l.log.Events() {
		if e.Kind == events.BootOverride {
			last = e.Detail
		}
	}
	assert.Equal(t, "Disabled", last["enabled"], "the lasting boot from the CD is cleared with the eject")

	_, err = l.restart()
	require.NoError(t, err)
	s := l.settled("4.2.0")
	assert.Equal(t, 1, s.ReimageCount, "the restart booted the disk")
	assert.Equal(t, 1, l.count(events.ReimageStart))
}
