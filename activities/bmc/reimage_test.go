package bmc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const image = "http://images.lab/rackroll-4.2.0.iso"

func reimageInput() ReimageInput {
	return ReimageInput{Endpoint: testEndpoint, ImageURL: image, Version: "4.2.0"}
}

func TestReimageReturnsOnceTheResetTookEffect(t *testing.T) {
	f := newFake()
	f.media[0].Image, f.media[0].Inserted = "http://elsewhere/tools.iso", true
	res, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Equal(t, ReimageResult{Version: "4.2.0", Reimaged: true, LastState: "PowerState On, Status.State Enabled, BootProgress OSBootStarted"}, res)
	assert.Equal(t, []string{
		"EjectMedia 1",
		"InsertMedia 1 " + image,
		"SetBootOverride Once Cd",
		"Reset ForceRestart",
	}, f.mutations(), "the installer stays in: the caller ejects once the node came back")
	assert.Equal(t, []string{"Cd"}, f.booted)
	assert.True(t, f.media[0].Inserted)
	assert.Equal(t, 1, f.closed, "the session is closed")
}

func TestReimageReturnsOnAVisiblePowerChange(t *testing.T) {
	f := newFake()
	f.onReset = func(f *fakeClient, rt string) (string, error) {
		f.sys.PowerState, f.sys.BootProgress = "PoweringOn", "" // override not consumed yet
		return "", nil
	}
	res, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Equal(t, "PowerState PoweringOn, Status.State Enabled", res.LastState)
}

func TestReimageWithATaskReturnsItsMonitor(t *testing.T) {
	f := newFake()
	f.onReset = func(f *fakeClient, rt string) (string, error) {
		f.tasks["/redfish/v1/TaskService/Tasks/7"] = bmcclient.Task{State: "Running"}
		return "/redfish/v1/TaskService/Tasks/7", nil // nothing visible yet
	}
	res, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Equal(t, "/redfish/v1/TaskService/Tasks/7", res.Task)
	assert.True(t, res.Reimaged)
	assert.Zero(t, f.count("Task"), "a 202 is evidence enough: the task is WatchReimage's")
}

func TestReimageResendsAnIgnoredResetOnceThenFails(t *testing.T) {
	f := newFake()
	f.onReset = func(*fakeClient, string) (string, error) { return "", nil } // answered 204, ignored
	a := activitiesWith(f)
	a.ResetEvidenceTimeout = 20 * time.Millisecond
	_, err := a.Reimage(context.Background(), reimageInput())
	ae := appError(t, err, ErrTypeNoEffect, false)
	assert.Contains(t, ae.Error(), "accepted ForceRestart twice (204) but showed no change within 20ms: PowerState On, Status.State Enabled, BootProgress OSRunning")
	assert.Equal(t, 2, f.count("Reset"), "sent once more, never a third time")
}

func TestReimageAResetSeenOnlyAfterItWasSentAgain(t *testing.T) {
	f := newFake()
	n := 0
	f.onReset = func(f *fakeClient, rt string) (string, error) {
		if n++; n == 2 { // the BMC dropped the first one
			f.apply(rt)
		}
		return "", nil
	}
	a := activitiesWith(f)
	a.ResetEvidenceTimeout = 20 * time.Millisecond
	res, err := a.Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Contains(t, res.LastState, "(the reset was sent twice)")
	assert.Equal(t, []string{"Cd"}, f.booted, "booted the installer once")
}

func TestReimageFromOffPowersOn(t *testing.T) {
	f := newFake()
	f.sys.PowerState, f.sys.BootProgress = "Off", "None"
	res, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Equal(t, "Reset On", f.mutations()[len(f.mutations())-1])
	assert.NotContains(t, f.mutations(), "Reset ForceRestart")
	assert.Contains(t, res.LastState, "PowerState On")
}

func TestReimageChoosesTheBootTarget(t *testing.T) {
	f := newFake()
	f.sys.BootTargets = []string{"None", "Pxe", "Hdd", "UsbCd", "BiosSetup"} // Supermicro
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Contains(t, f.mutations(), "SetBootOverride Once UsbCd")

	f = newFake()
	f.sys.BootTargets = []string{"None", "Pxe", "Hdd"}
	_, err = activitiesWith(f).Reimage(context.Background(), reimageInput())
	ae := appError(t, err, ErrTypeRejected, false)
	assert.Contains(t, ae.Error(), "[None Pxe Hdd]")
	assert.Empty(t, f.mutations(), "nothing is touched on a machine that cannot boot the CD")
}

func TestReimageRetriesStaleETag(t *testing.T) {
	f := newFake()
	f.errs["SetBootOverride"] = []error{httpErr(412), httpErr(412)}
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Equal(t, 3, f.count("SetBootOverride"))
}

func TestReimageStaleETagForever(t *testing.T) {
	f := newFake()
	for range 20 {
		f.errs["SetBootOverride"] = append(f.errs["SetBootOverride"], httpErr(412))
	}
	a := activitiesWith(f)
	a.ETagAttempts = 4
	_, err := a.Reimage(context.Background(), reimageInput())
	appError(t, err, ErrTypeConflict, true)
	assert.Equal(t, 4, f.count("SetBootOverride"))
	assert.Zero(t, f.count("Reset"), "no reset without the override")
}

func TestReimageDoesNotResetTwiceAfterAnAmbiguousFailure(t *testing.T) {
	f := newFake()
	first := true
	f.onReset = func(f *fakeClient, rt string) (string, error) {
		f.apply(rt)
		if first { // the BMC acted but the answer was lost
			first = false
			return "", httpErr(503)
		}
		return "", nil
	}
	res, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.True(t, res.Reimaged)
	assert.Equal(t, 1, f.count("Reset"))
}

func TestReimageRetriesAResetThatDidNotHappen(t *testing.T) {
	f := newFake()
	f.errs["Reset"] = []error{httpErr(500)}
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Equal(t, 2, f.count("Reset"))
	assert.Equal(t, []string{"Cd"}, f.booted)
}

func TestReimageRefusedResetFails(t *testing.T) {
	f := newFake()
	f.errs["Reset"] = []error{httpErr(400)}
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	appError(t, err, ErrTypeRejected, false)
	assert.Empty(t, f.booted)
}

func TestReimageHonoursCancellation(t *testing.T) {
	f := newFake()
	ctx, cancel := context.WithCancel(context.Background())
	f.onReset = func(*fakeClient, string) (string, error) {
		cancel() // while it looks for the reset's effect
		return "", nil
	}
	_, err := activitiesWith(f).Reimage(ctx, reimageInput())
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), err)
	assert.Equal(t, 1, f.closed, "the session is closed on cancel too")
}

func TestReimageRejectsBadInput(t *testing.T) {
	for name, in := range map[string]ReimageInput{
		"relative image": {Endpoint: testEndpoint, ImageURL: "rackroll-4.2.0.iso", Version: "4.2.0"},
		"ftp image":      {Endpoint: testEndpoint, ImageURL: "ftp://h/rackroll-4.2.0.iso", Version: "4.2.0"},
		"no version":     {Endpoint: testEndpoint, ImageURL: image},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake()
			_, err := activitiesWith(f).Reimage(context.Background(), in)
			appError(t, err, ErrTypeConfig, false)
			assert.Empty(t, f.calls, "no BMC request before the input is valid")
		})
	}
}

func TestReimageForceIsIgnored(t *testing.T) {
	for _, force := range []bool{false, true} {
		f := newFake()
		in := reimageInput()
		in.Force = force
		res, err := activitiesWith(f).Reimage(context.Background(), in)
		require.NoError(t, err)
		assert.True(t, res.Reimaged)
		assert.Equal(t, 1, f.count("Reset"), "every call reimages (force=%v)", force)
	}
}
