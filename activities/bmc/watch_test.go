package bmc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

func watchInput() WatchInput {
	return WatchInput{Endpoint: testEndpoint, OffLimit: 30 * time.Millisecond, SilenceLimit: 30 * time.Millisecond}
}

// watchFor runs WatchReimage until it fails or d passes.
func watchFor(f *fakeClient, in WatchInput, d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return activitiesWith(f).WatchReimage(ctx, in)
}

func TestWatchFailsOnATaskException(t *testing.T) {
	f := newFake()
	f.sys.BootProgress = "OEM"
	f.tasks["/tasks/4"] = Task{State: "Exception", Message: "Unable to boot the virtual media."}
	in := watchInput()
	in.Task = "/tasks/4"
	err := watchFor(f, in, 5*time.Second)
	ae := appError(t, err, ErrTypeReimageFailed, false)
	assert.Contains(t, ae.Error(), "the reset's task /tasks/4 reports Exception: Unable to boot the virtual media.")
	assert.Equal(t, 1, f.closed)
}

func TestWatchFailsWhenTheMachineStaysOff(t *testing.T) {
	f := newFake()
	f.sys.PowerState, f.sys.BootProgress = "Off", "None"
	err := watchFor(f, watchInput(), 5*time.Second)
	ae := appError(t, err, ErrTypeReimageFailed, false)
	assert.Contains(t, ae.Error(), "powered off for")
	assert.Contains(t, ae.Error(), "last BMC state: PowerState Off, Status.State Enabled, BootProgress None")
}

func TestWatchFailsWhenTheBMCStopsAnswering(t *testing.T) {
	f := newFake()
	for range 10000 {
		f.errs["System"] = append(f.errs["System"], httpErr(503))
	}
	err := watchFor(f, watchInput(), 5*time.Second)
	ae := appError(t, err, ErrTypeReimageFailed, false)
	assert.Contains(t, ae.Error(), "the BMC has not answered for")
	assert.Contains(t, ae.Error(), "HTTP 503")
	assert.Contains(t, ae.Error(), "last BMC state: never read")
}

func TestWatchKeepsDialingASilentBMC(t *testing.T) {
	f := newFake()
	a := activitiesWith(f)
	dials := 0
	a.Dial = func(context.Context, Endpoint, Credentials, time.Duration) (Client, error) {
		dials++
		return nil, errors.New("dial tcp 10.1.0.11:443: connect: connection refused")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := a.WatchReimage(ctx, watchInput())
	ae := appError(t, err, ErrTypeReimageFailed, false)
	assert.Contains(t, ae.Error(), "connection refused")
	assert.Greater(t, dials, 1, "a BMC rebooting mid-install is dialled again, not given up on")
}

func TestWatchDoesNotFailOnPOSTBootProgress(t *testing.T) {
	for _, bp := range []string{"", "SystemHardwareInitializationComplete", "OEM", "None", "PrimaryProcessorInitializationStarted"} {
		f := newFake()
		f.sys.BootProgress = bp
		f.sys.State = "Enabled"
		f.errs["System"] = []error{httpErr(503), httpErr(503)} // a hiccup shorter than the limit
		in := watchInput()
		in.SilenceLimit = time.Minute
		in.OffLimit = time.Minute
		err := watchFor(f, in, 100*time.Millisecond)
		require.Error(t, err)
		var ae *temporal.ApplicationError
		assert.False(t, errors.As(err, &ae), "BootProgress %q: only cancellation ends the watch, got %v", bp, err)
		assert.True(t, errors.Is(err, context.DeadlineExceeded), err)
		assert.Greater(t, f.count("System"), 3)
	}
}

func TestWatchForgetsAFinishedTask(t *testing.T) {
	f := newFake()
	f.tasks["/tasks/5"] = Task{State: "Completed"}
	in := watchInput()
	in.Task = "/tasks/5"
	err := watchFor(f, in, 50*time.Millisecond)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), err)
	assert.Equal(t, 1, f.count("Task"), "a completed task is read once")
}

func TestWatchResumedKeepsTheOffClock(t *testing.T) {
	f := newFake()
	f.sys.PowerState = "Off"
	a := activitiesWith(f)
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	env.SetHeartbeatDetails(watchProgress{Last: "PowerState Off", OffSince: time.Now().Add(-time.Hour)})
	in := watchInput()
	in.OffLimit = 10 * time.Minute
	_, err := env.ExecuteActivity(a.WatchReimage, in)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "powered off for 1h0m")
	assert.Equal(t, 1, f.count("System"), "failed on the first poll")
}

func TestWatchStopsOnAuthFailure(t *testing.T) {
	f := newFake()
	f.errs["System"] = []error{httpErr(401)}
	err := watchFor(f, watchInput(), 5*time.Second)
	appError(t, err, ErrTypeAuth, false)
}
