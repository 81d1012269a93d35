package bmc

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

// runWithHeartbeat runs Reimage as a retry whose predecessor left details.
func runWithHeartbeat(t *testing.T, f *fakeClient, details progress) (ReimageResult, error) {
	t.Helper()
	a := activitiesWith(f)
	a.ResetEvidenceTimeout = 50 * time.Millisecond // a reset without effect fails fast
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	env.SetHeartbeatDetails(details)
	val, err := env.ExecuteActivity(a.Reimage, reimageInput())
	var res ReimageResult
	if err == nil {
		require.NoError(t, val.Get(&res))
	}
	return res, err
}

func TestReimageResumedAfterTheResetReturnsTheSameResult(t *testing.T) {
	f := newFake()
	f.media[0].Image, f.media[0].Inserted = image, true // the installer is running
	res, err := runWithHeartbeat(t, f, progress{Step: "reset took effect", Version: "4.2.0", Image: image,
		ResetType: "ForceRestart", ResetIssued: true, Task: "/tasks/3", LastState: "PowerState PoweringOn"})
	require.NoError(t, err)
	assert.Equal(t, ReimageResult{Version: "4.2.0", Reimaged: true, Task: "/tasks/3", LastState: "PowerState PoweringOn"}, res)
	assert.Empty(t, f.mutations(), "no second reset, no eject")
	assert.True(t, f.media[0].Inserted)
}

func TestReimageResumedAfterItMayHaveSentTheReset(t *testing.T) {
	// The predecessor recorded that it was about to reset, then died: the
	// reset may have reached the BMC, so it is never sent again.
	f := newFake()
	f.media[0].Image, f.media[0].Inserted = image, true
	res, err := runWithHeartbeat(t, f, progress{Step: "sending reset ForceRestart", Version: "4.2.0", Image: image,
		ResetType: "ForceRestart", ResetIssued: true})
	require.NoError(t, err)
	assert.True(t, res.Reimaged)
	assert.Equal(t, "PowerState On, Status.State Enabled, BootProgress OSRunning (reset ForceRestart sent by an earlier attempt)", res.LastState)
	assert.Empty(t, f.mutations())
}

func TestReimageResumedBeforeTheResetStartsAgainSafely(t *testing.T) {
	f := newFake()
	f.media[0].Image, f.media[0].Inserted = image, true // inserted, reset not sent
	res, err := runWithHeartbeat(t, f, progress{Step: "mount the installer", Version: "4.2.0", Image: image})
	require.NoError(t, err)
	assert.True(t, res.Reimaged)
	assert.Equal(t, []string{"EjectMedia 1", "InsertMedia 1 " + image, "SetBootOverride Once Cd", "Reset ForceRestart"}, f.mutations())
}

func TestReimageResumedForAnotherVersionReimages(t *testing.T) {
	f := newFake()
	_, err := runWithHeartbeat(t, f, progress{Version: "4.1.9", Image: "http://images.lab/rackroll-4.1.9.iso", ResetIssued: true})
	require.NoError(t, err)
	assert.Equal(t, 1, f.count("Reset"), "another reimage's reset says nothing about this one")
}

func TestReimageResumedFromAnOlderWorkerStillDoesNotResetTwice(t *testing.T) {
	// Heartbeats recorded before the image was part of them.
	f := newFake()
	res, err := runWithHeartbeat(t, f, progress{Step: "reimaging", Version: "4.2.0", ResetIssued: true})
	require.NoError(t, err)
	assert.True(t, res.Reimaged)
	assert.Zero(t, f.count("Reset"))
}

func TestTheHeartbeatSaysWhetherTheResetMayHaveBeenSent(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		may  bool
	}{
		{"refused outright", httpErr(400), false},
		{"no answer", httpErr(503), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			for range 5 {
				f.errs["Reset"] = append(f.errs["Reset"], tc.err)
			}
			a := activitiesWith(f)
			a.ResetEvidenceTimeout = time.Millisecond
			r := &run{ctx: context.Background(), a: a, ep: testEndpoint, c: f}
			_, err := r.reimage(reimageInput())
			require.Error(t, err)
			assert.Equal(t, tc.may, r.progress.ResetIssued, "what a retry will read")
			assert.Equal(t, "ForceRestart", r.progress.ResetType)
		})
	}
}
