package bmc

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

const image = "http://images.lab/rackroll-4.2.0.iso"

func reimageInput() ReimageInput {
	return ReimageInput{Endpoint: testEndpoint, ImageURL: image, Version: "4.2.0"}
}

func TestReimageHappyPath(t *testing.T) {
	f := newFake()
	f.media.Image, f.media.Inserted = "http://elsewhere/tools.iso", true
	res, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Equal(t, ReimageResult{Version: "4.2.0", PreviousVersion: "4.1.2", Reimaged: true}, res)
	assert.Equal(t, []string{
		"EjectMedia",
		"InsertMedia " + image,
		"SetBootOverride Once Cd",
		"Reset ForceRestart",
		"EjectMedia",
	}, f.mutations())
	assert.Equal(t, "4.2.0", f.img.Version)
}

func TestReimageAlreadyAtVersionOnlyCleansUp(t *testing.T) {
	f := newFake()
	f.img.Version = "4.2.0"
	f.media.Image, f.media.Inserted = image, true // a crashed attempt left it in
	res, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.False(t, res.Reimaged)
	assert.Equal(t, []string{"EjectMedia"}, f.mutations())

	f.media.Image, f.media.Inserted = "http://someone/else.iso", true
	_, err = activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Equal(t, []string{"EjectMedia"}, f.mutations(), "someone else's media is left alone")
}

func TestReimageFromOffPowersOn(t *testing.T) {
	f := newFake()
	f.sys.PowerState, f.sys.BootProgress = "Off", "None"
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Contains(t, f.mutations(), "Reset On")
	assert.NotContains(t, f.mutations(), "Reset ForceRestart")
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
	assert.Equal(t, "4.2.0", f.img.Version)
}

func TestReimageTaskException(t *testing.T) {
	f := newFake()
	f.onReset = func(f *fakeClient, rt string) (string, error) {
		f.sys.BootOverride = "Disabled"
		f.img.Health = "Critical"
		f.tasks["/tasks/9"] = Task{State: "Exception", Message: "Reimage to 4.2.0 failed."}
		return "/tasks/9", nil
	}
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	ae := appError(t, err, ErrTypeReimageFailed, false)
	assert.Contains(t, ae.Error(), "Reimage to 4.2.0 failed")
	assert.False(t, f.media.Inserted, "the installer is ejected even on failure")
}

func TestReimageWithoutVersionReporting(t *testing.T) {
	f := newFake()
	f.img = OSImage{} // like most real BMCs
	res, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.True(t, res.Reimaged)
	assert.Empty(t, res.PreviousVersion)
}

func TestReimageOverrideIgnored(t *testing.T) {
	f := newFake()
	f.onReset = func(f *fakeClient, rt string) (string, error) {
		f.sys.BootOverride, f.sys.BootTarget = "Disabled", "None" // booted the disk
		return "", nil
	}
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	ae := appError(t, err, ErrTypeConflict, true)
	assert.Contains(t, ae.Error(), "came back running 4.1.2")
}

func TestReimageHonoursCancellation(t *testing.T) {
	f := newFake()
	ctx, cancel := context.WithCancel(context.Background())
	f.onReset = func(f *fakeClient, rt string) (string, error) {
		f.sys.State = "Updating" // the install never ends
		f.tasks["/tasks/1"] = Task{State: "Running"}
		cancel()
		return "/tasks/1", nil
	}
	_, err := activitiesWith(f).Reimage(ctx, reimageInput())
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), err)
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

// runResumed runs Reimage as a retry whose predecessor issued the reset.
func runResumed(t *testing.T, f *fakeClient) (ReimageResult, error) {
	t.Helper()
	a := activitiesWith(f)
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	env.SetHeartbeatDetails(progress{Step: "reimaging", Version: "4.2.0", From: "4.1.2", ResetIssued: true})
	val, err := env.ExecuteActivity(a.Reimage, reimageInput())
	var res ReimageResult
	if err == nil {
		require.NoError(t, val.Get(&res))
	}
	return res, err
}

func TestReimageResumedAfterTheReimageFinished(t *testing.T) {
	f := newFake()
	f.img.Version = "4.2.0" // the earlier attempt's reimage went through
	f.media.Image, f.media.Inserted = image, true
	res, err := runResumed(t, f)
	require.NoError(t, err)
	assert.Equal(t, ReimageResult{Version: "4.2.0", PreviousVersion: "4.1.2", Reimaged: true}, res)
	assert.Equal(t, []string{"EjectMedia"}, f.mutations())
}

func TestReimageResumedAfterTheReimageFailed(t *testing.T) {
	f := newFake()
	f.img.Health = "Critical"
	_, err := runResumed(t, f)
	appError(t, err, ErrTypeReimageFailed, false)
	assert.Zero(t, f.count("Reset"), "the failure is reported, not repeated")
}
