package bmc

import (
	"context"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/activities/bmc/gofishclient"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On a System whose override mode defaults to Legacy (lab profile
// bootmode-legacy, a UEFI-only installer), the reimage sets UEFI with the
// one-time boot and the install happens.
func TestLabLegacyDefaultSystemIsReimagedInUEFI(t *testing.T) {
	l := newLab(t, redfishtest.Profile("bootmode-legacy"))
	res, err := l.reimage("4.2.0")
	require.NoError(t, err)
	assert.True(t, res.Reimaged)
	assert.Equal(t, 1, l.settled("4.2.0").ReimageCount)
	assert.Zero(t, l.count(events.BootSkipped))
	require.NoError(t, l.eject("4.2.0"))
}

// The same System under the old behaviour (no mode sent): the BMC step
// passes — the one-time boot was consumed — but the firmware passes over
// the installer and boots the old disk: the node never comes back on the
// target.
func TestLabLegacyDefaultWithoutTheModeNeverInstalls(t *testing.T) {
	l := newLab(t, redfishtest.Profile("bootmode-legacy"))
	l.a.Dial = func(ctx context.Context, ep bmcclient.Endpoint, c bmcclient.Credentials, timeout time.Duration) (bmcclient.Client, error) {
		cl, err := gofishclient.Dial(ctx, ep, c, timeout)
		return modeless{cl}, err
	}
	_, err := l.reimage("4.2.0")
	require.NoError(t, err, "the reset took effect: the BMC step cannot tell")
	require.Eventually(t, func() bool { return l.count(events.BootSkipped) == 1 && l.bmc.State().OSRunning }, 30*time.Second, time.Millisecond)
	assert.Equal(t, "4.1.2", l.bmc.State().RuntimeVersion, "still the old version")
	assert.Zero(t, l.bmc.State().ReimageCount)
}

// A System without BootSourceOverrideMode (bootmode-absent refuses a PATCH
// of it) is not sent one and reimages.
func TestLabAbsentBootModeIsNotSent(t *testing.T) {
	l := newLab(t, redfishtest.Profile("bootmode-absent"))
	_, err := l.reimage("4.2.0")
	require.NoError(t, err)
	assert.Equal(t, 1, l.settled("4.2.0").ReimageCount)
}

var _ bmcclient.Client = modeless{}

// modeless is a client as rackroll was before it set the boot mode: it
// neither sees nor sends one.
type modeless struct{ bmcclient.Client }

func (c modeless) SetBootOverride(ctx context.Context, o bmcclient.BootOverride, etag string) error {
	o.Mode = ""
	return c.Client.SetBootOverride(ctx, o, etag)
}

// System hides the mode, so nothing asks for it.
func (c modeless) System(ctx context.Context) (bmcclient.System, error) {
	s, err := c.Client.System(ctx)
	s.BootModeShown, s.BootMode, s.BootModes = false, "", nil
	return s, err
}
