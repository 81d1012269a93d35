package redfish

import (
	"net/http"
	"testing"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const installer = "http://images.lab/rackroll-4.2.0.iso"

// startInstall mounts the installer in slot, sets a one-time boot from
// target and restarts, as a client that knows the vendor would.
func (r *rig) startInstall(slot, target string) {
	r.t.Helper()
	rep := r.do(http.MethodPost, slot+insertAction, map[string]any{"Image": installer, "Inserted": true, "WriteProtected": true})
	require.Less(r.t, rep.code, 300, "insert: %v", rep.body)
	rep = r.do(http.MethodPatch, r.b.paths.system, map[string]any{"Boot": map[string]any{"BootSourceOverrideEnabled": "Once", "BootSourceOverrideTarget": target}})
	require.Equal(r.t, http.StatusOK, rep.code, "boot override: %v", rep.body)
	rep = r.do(http.MethodPost, r.b.paths.reset, map[string]any{"ResetType": "ForceRestart"})
	require.Less(r.t, rep.code, 300, "reset: %v", rep.body)
	r.clk.Advance(2 * testTimings.PowerTransition)
}

func (r *rig) kinds() []string {
	var out []string
	for _, e := range r.log.Events() {
		out = append(out, e.Kind)
	}
	return out
}

// The installer stays inserted through the install and the boot into the
// new OS; ejecting after that is harmless, and the log's times say so.
func TestInstallThenEjectAfterTheNodeIsBack(t *testing.T) {
	r := newRig(t, profile("idrac9"))
	slot := r.b.paths.sysMedia + "/1"
	r.startInstall(slot, "Cd")
	require.True(t, r.b.State().Reimaging)
	assert.Nil(t, field(r.system(), "BootProgress"), "iDRAC shows no BootProgress")
	assert.Equal(t, "Enabled", field(r.system(), "Status", "State"), "nor that it installs")
	r.clk.Advance(testTimings.Reimage)
	assert.False(t, r.b.State().OSRunning, "the new OS boots only after the install")
	r.clk.Advance(testTimings.Boot)
	s := r.b.State()
	assert.True(t, s.OSRunning)
	assert.Equal(t, "4.2.0", s.RuntimeVersion)
	assert.Equal(t, "Disabled", field(r.system(), "Boot", "BootSourceOverrideEnabled"), "the one-time override was consumed")

	assert.Equal(t, http.StatusNoContent, r.do(http.MethodPost, slot+ejectAction, nil).code)
	assert.Equal(t, []string{events.MediaInsert, events.BootOverride, events.Reset, events.ReimageStart, events.ReimageDone, events.MediaEject}, r.kinds())
	evs := r.log.Events()
	assert.False(t, evs[5].Time.Before(evs[4].Time), "ejected after the install finished")
	assert.Equal(t, slot, evs[0].Detail["slot"])
	assert.True(t, r.b.State().OSRunning)
	assert.Zero(t, r.count(events.ReimageFailed))
}

// Ejecting while the installer runs breaks the install: no bootable OS,
// the old one included, until an install completes.
func TestEjectDuringInstallBreaksIt(t *testing.T) {
	r := newRig(t, profile("idrac9"))
	slot := r.b.paths.sysMedia + "/1"
	r.startInstall(slot, "Cd")
	r.clk.Advance(testTimings.Reimage / 10)
	require.Equal(t, http.StatusNoContent, r.do(http.MethodPost, slot+ejectAction, nil).code)

	var failed *events.Event
	for _, e := range r.log.Events() {
		if e.Kind == events.ReimageFailed {
			failed = &e
		}
	}
	require.NotNil(t, failed, "the event log says the install broke")
	assert.Contains(t, failed.Detail["reason"], "ejected before the install finished")
	r.clk.Advance(testTimings.Reimage + testTimings.Boot)
	s := r.b.State()
	assert.True(t, s.ReimageFailed)
	assert.False(t, s.OSRunning)
	assert.Equal(t, "4.1.2", s.RuntimeVersion)
	assert.Zero(t, s.ReimageCount)

	r.reset("ForceRestart")
	r.clk.Advance(2*testTimings.PowerTransition + testTimings.Boot)
	assert.False(t, r.b.State().OSRunning, "a reboot does not bring the old OS back")
	assert.Equal(t, "OK", field(r.system(), "Status", "Health"), "the BMC sees healthy hardware")
}

func TestIdrac10BootsVirtualMediaOnlyFromSlot1(t *testing.T) {
	r := newRig(t, profile("idrac10"))
	tok := r.login()
	r.do(http.MethodPost, r.b.paths.sysMedia+"/2"+insertAction, map[string]any{"Image": installer}, tok)
	r.do(http.MethodPatch, r.b.paths.system, map[string]any{"Boot": map[string]any{"BootSourceOverrideEnabled": "Once", "BootSourceOverrideTarget": "Cd"}}, tok)
	rep := r.do(http.MethodPost, r.b.paths.reset, map[string]any{"ResetType": "ForceRestart"}, tok)
	require.Equal(t, http.StatusAccepted, rep.code, "iDRAC10's reset is a job")
	loc := rep.header.Get("Location")
	r.clk.Advance(2 * testTimings.PowerTransition)
	code, state := r.taskStateAs(loc, tok)
	assert.Equal(t, []any{200, "Completed"}, []any{code, state}, "the job ends with the power cycle, before any OS")
	assert.False(t, r.b.State().Reimaging, "slot 2 is not offered to the firmware")
	r.clk.Advance(testTimings.Boot)
	assert.Equal(t, "4.1.2", r.b.State().RuntimeVersion)

	r.do(http.MethodPost, r.b.paths.sysMedia+"/2"+ejectAction, nil, tok)
	r.do(http.MethodPost, r.b.paths.sysMedia+"/1"+insertAction, map[string]any{"Image": installer}, tok)
	r.do(http.MethodPatch, r.b.paths.system, map[string]any{"Boot": map[string]any{"BootSourceOverrideEnabled": "Once", "BootSourceOverrideTarget": "Cd"}}, tok)
	r.do(http.MethodPost, r.b.paths.reset, map[string]any{"ResetType": "ForceRestart"}, tok)
	r.clk.Advance(2 * testTimings.PowerTransition)
	assert.True(t, r.b.State().Reimaging, "slot 1 boots")
}

func (r *rig) taskStateAs(location, token string) (int, string) {
	r.t.Helper()
	rep := r.do(http.MethodGet, location, nil, token)
	s, _ := rep.body["TaskState"].(string)
	return rep.code, s
}

// Supermicro boots its virtual CD with UsbCd (CD/DVD is the physical drive)
// and shows POST-time BootProgress whatever the OS does.
func TestSupermicroUsbCdAndPostTimeBootProgress(t *testing.T) {
	r := newRig(t, profile("supermicro"))
	slot := r.b.paths.mgrMedia + "/CD1"
	r.startInstall(slot, "CD/DVD")
	assert.False(t, r.b.State().Reimaging, "CD/DVD boots the empty physical drive")
	r.clk.Advance(testTimings.Boot)
	r.do(http.MethodPost, slot+ejectAction, nil)

	r.startInstall(slot, "UsbCd")
	require.True(t, r.b.State().Reimaging)
	assert.Equal(t, "SystemHardwareInitializationComplete", field(r.system(), "BootProgress", "LastState"))
	r.clk.Advance(testTimings.Reimage + testTimings.Boot)
	assert.True(t, r.b.State().OSRunning)
	assert.Equal(t, "SystemHardwareInitializationComplete", field(r.system(), "BootProgress", "LastState"), "never OSRunning")
	r.reset("ForceOff")
	r.clk.Advance(testTimings.PowerTransition)
	assert.Equal(t, "None", field(r.system(), "BootProgress", "LastState"))
}

// With no OS to honour it, a graceful shutdown is accepted and does
// nothing; ForceOff works.
func TestGracefulShutdownIgnoredWithoutAnOS(t *testing.T) {
	r := newRig(t, profile("idrac9"))
	r.do(http.MethodPatch, r.b.paths.system, map[string]any{"Boot": map[string]any{"BootSourceOverrideEnabled": "Once", "BootSourceOverrideTarget": "BiosSetup"}})
	r.reset("ForceRestart")
	r.clk.Advance(2 * testTimings.PowerTransition)
	require.Equal(t, "SetupEntered", r.b.machine.bootProgress(), "in BIOS setup")

	assert.Equal(t, http.StatusNoContent, r.reset("GracefulShutdown").code)
	r.clk.Advance(10 * testTimings.PowerTransition)
	assert.Equal(t, "On", r.b.State().Power, "nothing honoured the ACPI request")
	assert.Equal(t, http.StatusNoContent, r.reset("ForceOff").code)
	r.clk.Advance(testTimings.PowerTransition)
	assert.Equal(t, "Off", r.b.State().Power)
}
