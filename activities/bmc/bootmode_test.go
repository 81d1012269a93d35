package bmc

import (
	"context"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// legacyFake is a System whose override mode is Legacy and that offers
// both modes.
func legacyFake() *fakeClient {
	f := newFake()
	f.sys.BootModeShown, f.sys.BootMode, f.sys.BootModes = true, "Legacy", []string{"Legacy", "UEFI"}
	return f
}

func TestChooseBootMode(t *testing.T) {
	for _, c := range []struct {
		name string
		s    bmcclient.System
		want string
		err  string
	}{
		{"not shown: not sent", bmcclient.System{}, "", ""},
		{"shown, no list", bmcclient.System{BootModeShown: true, BootMode: "Legacy"}, "UEFI", ""},
		{"shown null", bmcclient.System{BootModeShown: true}, "UEFI", ""},
		{"listed", bmcclient.System{BootModeShown: true, BootModes: []string{"Legacy", "UEFI"}}, "UEFI", ""},
		{"list without it", bmcclient.System{BootModeShown: true, BootMode: "Legacy", BootModes: []string{"Legacy"}}, "",
			"the System cannot boot the installer in UEFI: BootSourceOverrideMode allows [Legacy]"},
	} {
		got, err := chooseBootMode("UEFI", c.s)
		if c.err != "" {
			require.ErrorContains(t, err, c.err, c.name)
			continue
		}
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, got, c.name)
	}
}

func TestReimageSetsTheBootModeWithTheTargetAndReadsItBack(t *testing.T) {
	f := legacyFake()
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Contains(t, f.mutations(), "SetBootOverride Once Cd UEFI", "one PATCH: Ironic saw BMCs reset the mode when the target changes")

	f = legacyFake()
	in := reimageInput()
	in.BootMode = "Legacy"
	_, err = activitiesWith(f).Reimage(context.Background(), in)
	require.NoError(t, err)
	assert.Contains(t, f.mutations(), "SetBootOverride Once Cd Legacy", "the inventory's mode")
}

func TestReimageSendsNoModeToASystemThatShowsNone(t *testing.T) {
	f := newFake()
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Contains(t, f.mutations(), "SetBootOverride Once Cd")
	assert.NotContains(t, f.mutations(), "SetBootOverride Once Cd UEFI")
}

func TestReimageRefusesAModeTheSystemDoesNotAllowBeforeChangingAnything(t *testing.T) {
	f := legacyFake()
	f.sys.BootModes = []string{"Legacy"}
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	ae := appError(t, err, ErrTypeRejected, false)
	assert.Contains(t, ae.Error(), "cannot boot the installer in UEFI: BootSourceOverrideMode allows [Legacy]")
	assert.Empty(t, f.mutations(), "nothing inserted, no boot set, no reset")
}

func TestReimageChecksTheBootModeInput(t *testing.T) {
	f := legacyFake()
	in := reimageInput()
	in.BootMode = "uefi"
	_, err := activitiesWith(f).Reimage(context.Background(), in)
	ae := appError(t, err, ErrTypeConfig, false)
	assert.Contains(t, ae.Error(), `bootMode: "uefi" — must be one of UEFI, Legacy`)
	assert.Zero(t, f.count("System"), "refused before the BMC is asked anything")
}

func TestAModeTheBMCIgnoresFailsTypedBeforeTheReset(t *testing.T) {
	f := legacyFake()
	f.modeIgnored = true
	a := activitiesWith(f)
	a.MediaTimeout = 20 * time.Millisecond
	_, err := a.Reimage(context.Background(), reimageInput())
	ae := appError(t, err, ErrTypeNoEffect, false)
	assert.Contains(t, ae.Error(), `accepted the one-time boot from Cd in UEFI mode (200) but shows BootSourceOverrideEnabled "Once", BootSourceOverrideTarget "Cd", BootSourceOverrideMode "Legacy"`)
	assert.Zero(t, f.count("Reset"), "a Legacy boot would not start the UEFI installer: no reset")
}

func TestAModeRefusedIsRetriedWithoutItAndTheReadBackDecides(t *testing.T) {
	f := legacyFake()
	f.sys.BootMode = "UEFI" // already in the mode: the boot without it is enough
	f.modeRefused = true
	_, err := activitiesWith(f).Reimage(context.Background(), reimageInput())
	require.NoError(t, err)
	assert.Contains(t, f.mutations(), "SetBootOverride Once Cd")
	assert.Contains(t, f.mutations(), "SetBootOverride Once Cd UEFI")

	f = legacyFake() // in Legacy: refused, and not in the mode after the boot without it
	f.modeRefused = true
	a := activitiesWith(f)
	a.MediaTimeout = 20 * time.Millisecond
	_, err = a.Reimage(context.Background(), reimageInput())
	ae := appError(t, err, ErrTypeNoEffect, false)
	assert.Contains(t, ae.Error(), "refused BootSourceOverrideMode UEFI (HTTP 400")
	assert.Contains(t, ae.Error(), `and accepted the one-time boot from Cd without it (200), but shows BootSourceOverrideEnabled "Once", BootSourceOverrideTarget "Cd", BootSourceOverrideMode "Legacy"`)
	assert.Zero(t, f.count("Reset"))
}

func TestSiteCheckNamesTheBootMode(t *testing.T) {
	item := bootModeFinding("UEFI", bmcclient.System{BootModeShown: true, BootMode: "Legacy", BootModes: []string{"Legacy"}})
	assert.True(t, item.Blocker)
	assert.Contains(t, item.Detail, "the installer needs UEFI")
	item = bootModeFinding("UEFI", bmcclient.System{BootModeShown: true, BootMode: "Legacy", BootModes: []string{"Legacy", "UEFI"}})
	assert.True(t, item.OK)
	assert.Contains(t, item.Detail, "UEFI, set with the one-time boot (now Legacy")
	assert.Contains(t, bootModeFinding("UEFI", bmcclient.System{}).Detail, "does not show BootSourceOverrideMode")
}
