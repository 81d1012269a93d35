package bmc

import (
	"context"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The evidence rule, one test per way a BMC answers 2xx and does not (yet)
// do it.

// laggingClient carries out a reset only after some reads of the System,
// as real BMCs do a second or more after their 204.
type laggingClient struct {
	*fakeClient
	lag     int    // reads between the answer and the effect
	pending string // the reset not carried out yet
	reads   int
}

func (c *laggingClient) Reset(_ context.Context, rt string) (bmcclient.Accepted, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, "Reset "+rt)
	c.pending, c.reads = rt, 0
	return bmcclient.Accepted{Status: 204}, nil
}

func (c *laggingClient) System(ctx context.Context) (bmcclient.System, error) {
	c.mu.Lock()
	switch c.reads++; {
	case c.pending != "" && c.reads == c.lag:
		c.sys.PowerState, c.sys.BootProgress = "PoweringOff", "None"
	case c.pending != "" && c.reads == c.lag+2:
		c.apply(c.pending)
		c.pending = ""
	}
	c.mu.Unlock()
	return c.fakeClient.System(ctx)
}

func TestRestartWaitsForADelayedReset(t *testing.T) {
	f := newFake()
	c := &laggingClient{fakeClient: f, lag: 5}
	a := activitiesWith(f)
	a.Dial = func(context.Context, bmcclient.Endpoint, bmcclient.Credentials, time.Duration) (bmcclient.Client, error) {
		return c, nil
	}
	res, err := a.Restart(context.Background(), testEndpoint)
	require.NoError(t, err)
	assert.Equal(t, "PowerState PoweringOff", res.Evidence, "PowerState On before the reset showed is no proof")
	assert.False(t, res.Unconfirmed)
	assert.Empty(t, c.pending, "returned only once the machine was back on")
	assert.Equal(t, "PowerState On, Status.State Enabled, BootProgress OSBootStarted", res.LastState)
}

func TestRestartIgnoredIsUnconfirmed(t *testing.T) {
	f := newFake()
	f.onReset = func(*fakeClient, string) (string, error) { return "", nil } // 204, nothing happens
	a := activitiesWith(f)
	a.ResetEvidenceTimeout = 20 * time.Millisecond
	res, err := a.Restart(context.Background(), testEndpoint)
	require.NoError(t, err, "only the node can tell a fast warm reset from an ignored one")
	assert.True(t, res.Unconfirmed)
	assert.Empty(t, res.Evidence)
	assert.Equal(t, "accepted ForceRestart (204) but showed no change within 20ms: PowerState On, Status.State Enabled, BootProgress OSRunning", res.Detail)
	assert.Equal(t, 1, f.count("Reset"), "a restart is never sent twice")
}

func TestForceOffIgnoredFailsTyped(t *testing.T) {
	f := newFake()
	f.onReset = func(*fakeClient, string) (string, error) { return "", nil }
	a := activitiesWith(f)
	a.PowerOnTimeout = 20 * time.Millisecond
	err := a.PowerOff(context.Background(), PowerOffInput{Endpoint: testEndpoint, SkipShutdown: true})
	ae := appError(t, err, ErrTypeNoEffect, false)
	assert.Contains(t, ae.Error(), "accepted ForceOff (204) but showed no change within 20ms: PowerState On")
}

func TestUnmountableImageFailsBeforeTheReset(t *testing.T) {
	f := newFake()
	f.unmountable = true // the BMC cannot reach the image server
	a := activitiesWith(f)
	a.MediaTimeout = 20 * time.Millisecond
	_, err := a.Reimage(context.Background(), reimageInput())
	ae := appError(t, err, ErrTypeNoEffect, false)
	for _, want := range []string{"the installer was not mounted", image, cdURI, "check that the BMC can reach the image server", `Image "", Inserted false`} {
		assert.Contains(t, ae.Error(), want)
	}
	assert.Equal(t, []string{"InsertMedia 1 " + image}, f.mutations(), "no boot override, no reset")
}

func TestMediaThatMountsLateIsAwaited(t *testing.T) {
	f := newFake()
	reads := 0
	f.onInsert = func(f *fakeClient, m bmcclient.MediaInfo, p bmcclient.InsertParams) error {
		f.unmountable = true // answered now, shown later
		return nil
	}
	a := activitiesWith(f)
	a.Dial = func(context.Context, bmcclient.Endpoint, bmcclient.Credentials, time.Duration) (bmcclient.Client, error) {
		return &mountingClient{fakeClient: f, after: 4, reads: &reads}, nil
	}
	_, err := a.Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.GreaterOrEqual(t, reads, 4)
	assert.Equal(t, []string{"Cd"}, f.booted)
}

// mountingClient shows an accepted image only after some reads of the slot.
type mountingClient struct {
	*fakeClient
	after int
	reads *int
}

func (c *mountingClient) Medium(ctx context.Context, m bmcclient.MediaInfo) (bmcclient.MediaInfo, error) {
	c.mu.Lock()
	if c.unmountable {
		if *c.reads++; *c.reads == c.after {
			cur := c.member(m.URI)
			cur.Image, cur.Inserted, c.unmountable = image, true, false
		}
	}
	c.mu.Unlock()
	return c.fakeClient.Medium(ctx, m)
}

func TestIgnoredEjectFailsTyped(t *testing.T) {
	f := newFake()
	f.media[0].Image, f.media[0].Inserted = image, true
	f.ejectIgnored = true
	a := activitiesWith(f)
	a.MediaTimeout = 20 * time.Millisecond
	err := a.EjectMedia(context.Background(), EjectInput{Endpoint: testEndpoint, ImageURL: image})
	ae := appError(t, err, ErrTypeNoEffect, false)
	assert.Contains(t, ae.Error(), "accepted the eject (204) but the slot still shows Image \""+image+"\", Inserted true")
}

func TestContinuousOverrideIsRecordedAndClearedWithTheEject(t *testing.T) {
	f := newFake()
	f.continuous = true
	a := activitiesWith(f)
	res, err := a.Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Equal(t, "Continuous", res.BootOverride, "the result says the BMC kept booting the CD")

	require.NoError(t, a.EjectMedia(context.Background(), EjectInput{Endpoint: testEndpoint, ImageURL: image}))
	muts := f.mutations()
	assert.Equal(t, []string{"EjectMedia 1", "SetBootOverride Disabled None"}, muts[len(muts)-2:],
		"the installer is out and the lasting boot from it cleared: it never boots twice")
	assert.Equal(t, "Disabled", f.sys.BootOverride)
}

func TestBootOverrideNotAppliedFailsTyped(t *testing.T) {
	f := newFake()
	a := activitiesWith(f)
	a.MediaTimeout = 20 * time.Millisecond
	a.Dial = func(context.Context, bmcclient.Endpoint, bmcclient.Credentials, time.Duration) (bmcclient.Client, error) {
		return &overrideIgnored{f}, nil
	}
	_, err := a.Reimage(context.Background(), reimageInput())
	ae := appError(t, err, ErrTypeNoEffect, false)
	assert.Contains(t, ae.Error(), `accepted the one-time boot from Cd (200) but shows BootSourceOverrideEnabled "Disabled"`)
	assert.Zero(t, f.count("Reset"))
}

// overrideIgnored answers the PATCH of the boot override and keeps it.
type overrideIgnored struct{ *fakeClient }

func (c *overrideIgnored) SetBootOverride(context.Context, bmcclient.BootOverride, string) error {
	return nil
}

func TestAPowerTransitionThatNeverSettlesFailsTyped(t *testing.T) {
	f := newFake()
	f.sys.PowerState = "PoweringOn" // and it stays so
	a := activitiesWith(f)
	a.PowerOnTimeout = 20 * time.Millisecond
	_, err := a.Restart(context.Background(), testEndpoint)
	ae := appError(t, err, ErrTypeNoEffect, false)
	assert.Contains(t, ae.Error(), "the BMC still shows PowerState PoweringOn after 20ms")
	assert.Empty(t, f.mutations())
}
