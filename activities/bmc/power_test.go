package bmc

import (
	"context"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

func TestPowerOnOnlyWhenOff(t *testing.T) {
	f := newFake()
	a := activitiesWith(f)
	res, err := a.PowerOn(context.Background(), testEndpoint)
	require.NoError(t, err)
	assert.Empty(t, f.mutations(), "already on")
	assert.Empty(t, res.ResetType, "no reset: the caller must not wait for a new boot")

	f.sys.PowerState = "Off"
	res, err = a.PowerOn(context.Background(), testEndpoint)
	require.NoError(t, err)
	assert.Equal(t, []string{"Reset On"}, f.mutations())
	assert.Equal(t, PowerResult{ResetType: "On", Answer: "204", Evidence: "PowerState Off → On",
		LastState: "PowerState On, Status.State Enabled, BootProgress OSBootStarted"}, res)
	assert.Equal(t, "root", f.creds.Username, "credentials resolved from the reference")
}

func TestPowerOffGracefulOrForced(t *testing.T) {
	f := newFake()
	a := activitiesWith(f)
	require.NoError(t, a.PowerOff(context.Background(), PowerOffInput{Endpoint: testEndpoint}))
	assert.Equal(t, []string{"Reset GracefulShutdown"}, f.mutations())
	require.NoError(t, a.PowerOff(context.Background(), PowerOffInput{Endpoint: testEndpoint}))
	assert.Len(t, f.mutations(), 1, "already off")

	f = newFake()
	a = activitiesWith(f)
	require.NoError(t, a.PowerOff(context.Background(), PowerOffInput{Endpoint: testEndpoint, SkipShutdown: true}))
	assert.Equal(t, []string{"Reset ForceOff"}, f.mutations())
}

func TestGracefulShutdownFallsBackToForceOff(t *testing.T) {
	f := newFake()
	f.onReset = func(f *fakeClient, rt string) (string, error) {
		if rt != "GracefulShutdown" { // the OS ignores the ACPI request
			f.apply(rt)
		}
		return "", nil
	}
	a := activitiesWith(f)
	a.ShutdownTimeout = 1 // nanosecond: give up on the first poll
	require.NoError(t, a.PowerOff(context.Background(), PowerOffInput{Endpoint: testEndpoint}))
	assert.Equal(t, []string{"Reset GracefulShutdown", "Reset ForceOff"}, f.mutations())
}

func TestRestart(t *testing.T) {
	f := newFake()
	a := activitiesWith(f)
	res, err := a.Restart(context.Background(), testEndpoint)
	require.NoError(t, err)
	assert.Equal(t, []string{"Reset ForceRestart"}, f.mutations())
	assert.Equal(t, "BootProgress OSRunning → OSBootStarted", res.Evidence)
	assert.False(t, res.Unconfirmed)

	f.sys.PowerState = "Off"
	res, err = a.Restart(context.Background(), testEndpoint)
	require.NoError(t, err)
	assert.Equal(t, []string{"Reset ForceRestart", "Reset On"}, f.mutations(), "an off machine is powered on")
	assert.Equal(t, "On", res.ResetType)
}

func TestRestartRetriedAfterResetDoesNotResetAgain(t *testing.T) {
	f := newFake()
	a := activitiesWith(f)
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	env.SetHeartbeatDetails(progress{Step: "restarting", ResetIssued: true})
	v, err := env.ExecuteActivity(a.Restart, testEndpoint)
	require.NoError(t, err)
	assert.Empty(t, f.mutations())
	var res PowerResult
	require.NoError(t, v.Get(&res))
	assert.True(t, res.Unconfirmed, "the earlier attempt's reset was not seen: the node settles it")
}

func TestPowerOnAcceptedButFailed(t *testing.T) {
	f := newFake()
	f.sys.PowerState = "Off"
	f.onReset = func(f *fakeClient, rt string) (string, error) {
		f.tasks["/tasks/1"] = bmcclient.Task{State: "Exception", Message: "The system did not power on."}
		return "/tasks/1", nil
	}
	_, err := activitiesWith(f).PowerOn(context.Background(), testEndpoint)
	ae := appError(t, err, ErrTypePowerFailed, false)
	assert.Contains(t, ae.Error(), "did not power on")
}

func TestReadPower(t *testing.T) {
	f := newFake()
	f.sys.Health = "Warning"
	st, err := activitiesWith(f).ReadPower(context.Background(), testEndpoint)
	require.NoError(t, err)
	assert.Equal(t, PowerStatus{PowerState: "On", Health: "Warning"}, st)
}

func TestWaitsOutATransitionInProgress(t *testing.T) {
	f := newFake()
	f.sys.PowerState = "PoweringOff"
	reads := 0 // the transition finishes after a few reads
	a := activitiesWith(f)
	a.Dial = func(context.Context, bmcclient.Endpoint, bmcclient.Credentials, time.Duration) (bmcclient.Client, error) {
		return &settlingClient{fakeClient: f, after: 3, reads: &reads, to: "Off"}, nil
	}
	_, err := a.PowerOn(context.Background(), testEndpoint)
	require.NoError(t, err)
	assert.Equal(t, []string{"Reset On"}, f.mutations())
	assert.GreaterOrEqual(t, reads, 3)
}

// settlingClient finishes a power transition after some reads.
type settlingClient struct {
	*fakeClient
	after int
	reads *int
	to    string
}

func (c *settlingClient) System(ctx context.Context) (bmcclient.System, error) {
	if *c.reads++; *c.reads == c.after {
		c.mu.Lock()
		c.sys.PowerState = c.to
		c.mu.Unlock()
	}
	return c.fakeClient.System(ctx)
}
