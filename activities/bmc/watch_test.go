package bmc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
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
	f.tasks["/tasks/4"] = bmcclient.Task{State: "Exception", Message: "Unable to boot the virtual media."}
	in := watchInput()
	in.Task = "/tasks/4"
	err := watchFor(f, in, 5*time.Second)
	ae := appError(t, err, ErrTypeReimageFailed, false)
	assert.Contains(t, ae.Error(), "the reset's task /tasks/4 reports Exception: Unable to boot the virtual media.")
	// The task failed before the first reading: the System is read for it.
	assert.Contains(t, ae.Error(), "last BMC state: PowerState On, Status.State Enabled, BootProgress OEM")
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
	a.Dial = func(context.Context, bmcclient.Endpoint, bmcclient.Credentials, time.Duration) (bmcclient.Client, error) {
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
	f.tasks["/tasks/5"] = bmcclient.Task{State: "Completed"}
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

// A BMC that shows BootProgress: the installer booted (OSBootStarted), then
// the machine stays in POST — the install is over and no OS starts.
func TestWatchFailsWhenNoOSBootsAfterTheInstaller(t *testing.T) {
	f := newFake()
	f.sys.BootProgress = "OSBootStarted"
	in := watchInput()
	in.OffLimit, in.SilenceLimit, in.StuckLimit = time.Minute, time.Minute, 50*time.Millisecond
	go func() {
		time.Sleep(30 * time.Millisecond)
		f.setBootProgress("SystemHardwareInitializationComplete")
	}()
	err := watchFor(f, in, 5*time.Second)
	ae := appError(t, err, ErrTypeReimageFailed, false)
	assert.Contains(t, ae.Error(), "BootProgress has shown SystemHardwareInitializationComplete for")
	assert.Contains(t, ae.Error(), "no operating system started")
}

func TestNoOSBootedFollowsTheInstall(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name     string
		sawOS    bool
		progress string
		wantSaw  bool
		wantPost bool
	}{
		{"the installer boots", false, "OSBootStarted", true, false},
		{"POST before any OS boot (Supermicro, a first POST)", false, "SystemHardwareInitializationComplete", false, false},
		{"POST after the installer", true, "SystemHardwareInitializationComplete", true, true},
		{"the new OS runs", true, "OSRunning", true, false},
		{"no BootProgress", true, "", true, false},
		{"an OEM value", true, "OEM", true, false},
	} {
		saw, post := noOSBooted(tc.sawOS, time.Time{}, tc.progress, t0)
		assert.Equal(t, tc.wantSaw, saw, tc.name)
		assert.Equal(t, tc.wantPost, !post.IsZero(), tc.name)
	}
	_, post := noOSBooted(true, t0, "SetupEntered", t0.Add(time.Minute))
	assert.Equal(t, t0, post, "the clock keeps its start while POST lasts")
}

func (f *fakeClient) setBootProgress(p string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sys.BootProgress = p
}

// A watch its caller stops (the node came back first) ends as the SDK's
// benign kind of error, still a cancellation, so the worker does not log
// a healthy reimage as an activity error; retryable, so one cut by a
// worker's shutdown is tried again.
func TestWatchStoppedByItsCallerIsBenign(t *testing.T) {
	f := newFake()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	err := activitiesWith(f).WatchReimage(ctx, watchInput())
	ae := appError(t, err, ErrTypeWatchStopped, true)
	assert.Equal(t, temporal.ApplicationErrorCategoryBenign, ae.Category())
	assert.True(t, errors.Is(err, context.Canceled), "answered to the server as cancelled: %v", err)
	assert.NotContains(t, err.Error(), testEndpoint.Address)
}
