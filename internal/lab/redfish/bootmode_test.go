package redfish_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bootInstaller mounts the installer, sets a one-time boot from the CD
// (with mode, unless "") and restarts, as a client would.
func bootInstaller(t *testing.T, srv *redfishtest.Server, mode schemas.BootSourceOverrideMode) *schemas.ComputerSystem {
	t.Helper()
	c, err := gofish.Connect(gofish.ClientConfig{Endpoint: srv.URL, Username: redfishtest.Username, Password: redfishtest.Password,
		HTTPClient: redfishtest.TrustingOnly(t, srv.CAFile)})
	require.NoError(t, err)
	t.Cleanup(c.Logout)
	sys := system(t, c)
	cd := virtualCD(t, c, sys)
	_, err = cd.InsertMedia(&schemas.VirtualMediaInsertMediaParameters{Image: "http://images.lab/rackroll-4.2.0.iso", Inserted: gofish.ToRef(true)})
	require.NoError(t, err)
	require.NoError(t, sys.SetBoot(&schemas.Boot{BootSourceOverrideEnabled: schemas.OnceBootSourceOverrideEnabled,
		BootSourceOverrideTarget: schemas.CdBootSource, BootSourceOverrideMode: mode}))
	_, err = sys.Reset(schemas.ForceRestartResetType)
	require.NoError(t, err)
	return sys
}

// bootmode-legacy shows Legacy until told otherwise; a one-time boot of
// the (UEFI-only) installer without the mode boots the old disk again.
func TestLegacyDefaultBootsTheInstallerOnlyInUEFIMode(t *testing.T) {
	srv := redfishtest.StartTLS(t, redfishtest.Profile("bootmode-legacy"))
	raw := getSystem(t, srv)
	assert.Equal(t, "Legacy", raw.Boot.BootSourceOverrideMode)

	bootInstaller(t, srv, "")
	require.Eventually(t, func() bool { return srv.BMC.State().OSRunning && srv.Log.Count(events.BootSkipped, "") == 1 },
		10*time.Second, 5*time.Millisecond, "the firmware passed over the CD and booted the disk")
	assert.Equal(t, "4.1.2", srv.BMC.State().RuntimeVersion, "no install happened")
	assert.Zero(t, srv.BMC.State().ReimageCount)

	srv = redfishtest.StartTLS(t, redfishtest.Profile("bootmode-legacy"))
	bootInstaller(t, srv, schemas.UEFIBootSourceOverrideMode)
	require.Eventually(t, func() bool { s := srv.BMC.State(); return s.OSRunning && s.RuntimeVersion == "4.2.0" },
		10*time.Second, 5*time.Millisecond, "in UEFI mode the installer runs")
	assert.Zero(t, srv.Log.Count(events.BootSkipped, ""))
	assert.Equal(t, "Legacy", getSystem(t, srv).Boot.BootSourceOverrideMode, "the consumed override is back at its default")
}

// A PATCH of the target alone puts the mode back to the default (Ironic:
// "Some BMCs reset it to default (BIOS) when changing the boot device").
func TestLegacyDefaultReturnsWhenTheTargetIsSetAlone(t *testing.T) {
	srv := redfishtest.StartTLS(t, redfishtest.Profile("bootmode-legacy"))
	c, err := gofish.Connect(gofish.ClientConfig{Endpoint: srv.URL, Username: redfishtest.Username, Password: redfishtest.Password,
		HTTPClient: redfishtest.TrustingOnly(t, srv.CAFile)})
	require.NoError(t, err)
	defer c.Logout()
	sys := system(t, c)
	require.NoError(t, sys.SetBoot(&schemas.Boot{BootSourceOverrideEnabled: schemas.OnceBootSourceOverrideEnabled,
		BootSourceOverrideTarget: schemas.PxeBootSource, BootSourceOverrideMode: schemas.UEFIBootSourceOverrideMode}))
	assert.Equal(t, "UEFI", getSystem(t, srv).Boot.BootSourceOverrideMode)
	sys = system(t, c) // its ETag changed
	require.NoError(t, sys.SetBoot(&schemas.Boot{BootSourceOverrideEnabled: schemas.OnceBootSourceOverrideEnabled,
		BootSourceOverrideTarget: schemas.CdBootSource}))
	assert.Equal(t, "Legacy", getSystem(t, srv).Boot.BootSourceOverrideMode)
}

// bootmode-absent has no BootSourceOverrideMode: a PATCH of it is refused,
// and the installer boots (the firmware is UEFI).
func TestAbsentBootModeIsRefusedAndNotNeeded(t *testing.T) {
	srv := redfishtest.StartTLS(t, redfishtest.Profile("bootmode-absent"))
	raw := getSystem(t, srv)
	assert.False(t, raw.hasMode, "no BootSourceOverrideMode property")
	c, err := gofish.Connect(gofish.ClientConfig{Endpoint: srv.URL, Username: redfishtest.Username, Password: redfishtest.Password,
		HTTPClient: redfishtest.TrustingOnly(t, srv.CAFile)})
	require.NoError(t, err)
	defer c.Logout()
	sys := system(t, c)
	err = sys.SetBoot(&schemas.Boot{BootSourceOverrideEnabled: schemas.OnceBootSourceOverrideEnabled,
		BootSourceOverrideTarget: schemas.CdBootSource, BootSourceOverrideMode: schemas.UEFIBootSourceOverrideMode})
	require.ErrorContains(t, err, "PropertyUnknown")
	bootInstaller(t, srv, "")
	require.Eventually(t, func() bool { s := srv.BMC.State(); return s.OSRunning && s.RuntimeVersion == "4.2.0" },
		10*time.Second, 5*time.Millisecond)
}

type rawSystem struct {
	Boot struct {
		BootSourceOverrideMode string
	}
	hasMode bool
}

// getSystem reads the System's Boot as JSON, noting whether the mode is there.
func getSystem(t *testing.T, srv *redfishtest.Server) rawSystem {
	t.Helper()
	c, err := gofish.Connect(gofish.ClientConfig{Endpoint: srv.URL, Username: redfishtest.Username, Password: redfishtest.Password,
		HTTPClient: redfishtest.TrustingOnly(t, srv.CAFile)})
	require.NoError(t, err)
	defer c.Logout()
	sys := system(t, c)
	var out rawSystem
	require.NoError(t, json.Unmarshal(sys.RawData, &out))
	var m struct{ Boot map[string]any }
	require.NoError(t, json.Unmarshal(sys.RawData, &m))
	_, out.hasMode = m.Boot["BootSourceOverrideMode"]
	return out
}
