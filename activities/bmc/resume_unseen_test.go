package bmc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// armed is the System the reset of a reimage starts from: the one-time
// boot from the installer set, the OS still running.
var armed = resetMark{PowerState: "On", BootProgress: "OSRunning", BootOverride: "Once"}

// resumeUnseen runs Reimage as a retry whose predecessor recorded the reset
// with the state before it, then died before it saw an effect.
func resumeUnseen(t *testing.T, f *fakeClient) (ReimageResult, error) {
	t.Helper()
	before := armed
	return runWithHeartbeat(t, f, progress{Step: "sending reset ForceRestart", Version: "4.2.0", Image: image,
		ResetType: "ForceRestart", ResetIssued: true, Before: &before})
}

// Killed between the record and the POST: the BMC shows no reset (the
// one-time boot still armed, the OS still running), so the retry sends it,
// once, instead of leaving the machine to wait for an install that never
// started.
func TestReimageResumedSendsTheResetTheBMCNeverGot(t *testing.T) {
	f := newFake()
	f.media[0].Image, f.media[0].Inserted = image, true
	f.sys.BootOverride, f.sys.BootTarget = "Once", "Cd"
	res, err := resumeUnseen(t, f)
	require.NoError(t, err)
	assert.True(t, res.Reimaged)
	assert.Equal(t, []string{"Reset ForceRestart"}, f.mutations(), "one reset, no second mount")
	assert.Equal(t, []string{"Cd"}, f.booted, "it booted the installer")
	assert.Contains(t, res.LastState, "(reset ForceRestart sent by an earlier attempt)")
}

// The reset did reach the BMC (the one-time boot was consumed): no second.
func TestReimageResumedAfterTheResetTookEffectSendsNoSecond(t *testing.T) {
	f := newFake()
	f.media[0].Image, f.media[0].Inserted = image, true
	f.sys.BootProgress = "OSBootStarted" // BootOverride Disabled: consumed
	res, err := resumeUnseen(t, f)
	require.NoError(t, err)
	assert.True(t, res.Reimaged)
	assert.Empty(t, f.mutations())
}

// Neither the first reset nor the one sent again shows: the step fails
// saying so, as a reset without effect does.
func TestReimageResumedWithNoEffectAtAllFails(t *testing.T) {
	f := newFake()
	f.media[0].Image, f.media[0].Inserted = image, true
	f.sys.BootOverride, f.sys.BootTarget = "Once", "Cd"
	f.onReset = func(*fakeClient, string) (string, error) { return "", nil } // accepted, never acted on
	_, err := resumeUnseen(t, f)
	require.ErrorContains(t, err, "the install did not start")
	assert.Equal(t, 1, f.count("Reset"))
}
