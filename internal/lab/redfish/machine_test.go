package redfish

import (
	"net/http"
	"testing"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStartsRunningItsVersion(t *testing.T) {
	r := newRig(t)
	assert.Equal(t, State{Power: "On", OSRunning: true, RuntimeVersion: "4.1.2"}, r.b.State())
	sys := r.system()
	assert.Equal(t, "On", sys["PowerState"])
	assert.Equal(t, "OSRunning", field(sys, "BootProgress", "LastState"))
	assert.Equal(t, "SN-0101", sys["SerialNumber"])
	img := r.do(http.MethodGet, osImagePath, nil)
	assert.Equal(t, "4.1.2", img.body["Version"])
}

func TestPowerOffThenOn(t *testing.T) {
	r := newRig(t)

	off := r.reset("ForceOff")
	require.Equal(t, http.StatusAccepted, off.code)
	loc := off.header.Get("Location")
	require.NotEmpty(t, loc)
	assert.Equal(t, "PoweringOff", r.system()["PowerState"])
	assert.Equal(t, State{Power: "On", PoweringOff: true, RuntimeVersion: "4.1.2"}, r.b.State(), "power is on until the transition completes")
	code, st := r.taskState(loc)
	assert.Equal(t, http.StatusAccepted, code, "a running task monitor answers 202")
	assert.Equal(t, taskRunning, st)

	r.clk.Advance(testTimings.PowerTransition)
	assert.Equal(t, "Off", r.b.State().Power)
	assert.Equal(t, "Off", r.system()["PowerState"])
	code, st = r.taskState(loc)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, taskCompleted, st)
	assert.Equal(t, 1, r.count(events.PowerOff))

	assert.Equal(t, http.StatusNoContent, r.reset("ForceOff").code, "already off: nothing to do")
	assert.Equal(t, http.StatusConflict, r.reset("ForceRestart").code, "restarting an off machine is refused")

	on := r.reset("On")
	require.Equal(t, http.StatusAccepted, on.code)
	r.clk.Advance(testTimings.PowerTransition)
	assert.Equal(t, State{Power: "On", Booting: true, RuntimeVersion: "4.1.2"}, r.b.State())
	assert.Equal(t, "Starting", field(r.system(), "Status", "State"))
	r.clk.Advance(testTimings.Boot)
	assert.Equal(t, State{Power: "On", OSRunning: true, RuntimeVersion: "4.1.2"}, r.b.State())
	_, st = r.taskState(on.header.Get("Location"))
	assert.Equal(t, taskCompleted, st, "the On task completes once the OS runs")
	assert.Equal(t, 1, r.count(events.PowerOn))
	assert.Equal(t, http.StatusNoContent, r.reset("On").code, "already on")
}

func TestRestartCyclesPowerAndEmitsOneReset(t *testing.T) {
	r := newRig(t)
	require.Equal(t, http.StatusAccepted, r.reset("ForceRestart").code)
	r.clk.Advance(testTimings.PowerTransition)
	assert.Equal(t, "PoweringOn", r.system()["PowerState"])
	assert.Equal(t, "Off", r.b.State().Power)
	r.clk.Advance(testTimings.PowerTransition + testTimings.Boot)
	assert.True(t, r.b.State().OSRunning)
	assert.Equal(t, 1, r.count(events.Reset))
	assert.Zero(t, r.count(events.PowerOn)+r.count(events.PowerOff))
}

func TestBootOverrideOnceIsClearedByTheBoot(t *testing.T) {
	r := newRig(t)
	rep := r.do(http.MethodPatch, systemPath, map[string]any{"Boot": map[string]any{
		"BootSourceOverrideEnabled": "Once", "BootSourceOverrideTarget": "Pxe"}})
	require.Equal(t, http.StatusOK, rep.code, rep.body)
	assert.Equal(t, "Once", field(r.system(), "Boot", "BootSourceOverrideEnabled"))
	assert.Equal(t, 1, r.count(events.BootOverride))

	r.reset("GracefulRestart")
	r.clk.Advance(2 * testTimings.PowerTransition)
	sys := r.system()
	assert.Equal(t, "Disabled", field(sys, "Boot", "BootSourceOverrideEnabled"))
	assert.Equal(t, "None", field(sys, "Boot", "BootSourceOverrideTarget"))
	r.clk.Advance(testTimings.Boot)
	assert.True(t, r.b.State().OSRunning, "no PXE server in the lab: falls through to the disk")
	assert.Zero(t, r.b.State().ReimageCount)
}

func TestBadOverrideValueRefused(t *testing.T) {
	r := newRig(t)
	rep := r.do(http.MethodPatch, systemPath, map[string]any{"Boot": map[string]any{"BootSourceOverrideTarget": "Floppy"}})
	assert.Equal(t, http.StatusBadRequest, rep.code)
	assert.Contains(t, field(rep.body, "error", "code"), "PropertyValueNotInList")
	rep = r.do(http.MethodPatch, systemPath, map[string]any{"PowerState": "Off"})
	assert.Equal(t, http.StatusBadRequest, rep.code)
}

// reimageTo inserts an installer image, sets a one-time Cd boot and
// restarts, returning the reset's task monitor.
func (r *rig) reimageTo(version string) string {
	r.t.Helper()
	ins := r.do(http.MethodPost, sysCDPath+insertAction, map[string]any{"Image": "http://images.lab/rackroll-" + version + ".iso"})
	require.Equal(r.t, http.StatusAccepted, ins.code, ins.body)
	patch := r.do(http.MethodPatch, systemPath, map[string]any{"Boot": map[string]any{
		"BootSourceOverrideEnabled": "Once", "BootSourceOverrideTarget": "Cd"}})
	require.Equal(r.t, http.StatusOK, patch.code, patch.body)
	rst := r.reset("ForceRestart")
	require.Equal(r.t, http.StatusAccepted, rst.code, rst.body)
	return rst.header.Get("Location")
}

func TestReimageHappyPath(t *testing.T) {
	r := newRig(t)
	loc := r.reimageTo("4.2.0")
	r.clk.Advance(2 * testTimings.PowerTransition)
	assert.Equal(t, State{Power: "On", Reimaging: true, RuntimeVersion: "4.1.2"}, r.b.State())
	assert.Equal(t, "Updating", field(r.system(), "Status", "State"))
	assert.Equal(t, 1, r.count(events.ReimageStart))

	r.clk.Advance(testTimings.Reimage)
	assert.Equal(t, State{Power: "On", Booting: true, RuntimeVersion: "4.2.0", ReimageCount: 1}, r.b.State())
	r.clk.Advance(testTimings.Boot)
	assert.Equal(t, State{Power: "On", OSRunning: true, RuntimeVersion: "4.2.0", ReimageCount: 1}, r.b.State())
	_, st := r.taskState(loc)
	assert.Equal(t, taskCompleted, st)
	assert.Equal(t, "4.2.0", r.do(http.MethodGet, osImagePath, nil).body["Version"])
	assert.Equal(t, 1, r.count(events.ReimageDone))

	// The media is still in, but the override was used up: the next boot
	// is from the disk.
	r.reset("ForceRestart")
	r.clk.Advance(2*testTimings.PowerTransition + testTimings.Boot)
	assert.Equal(t, 1, r.b.State().ReimageCount)
	assert.True(t, r.b.State().OSRunning)
}

func TestReimageFails(t *testing.T) {
	r := newRig(t)
	r.b.SetFault(faults.ReimageFails, 0)
	loc := r.reimageTo("4.2.0")
	r.clk.Advance(2*testTimings.PowerTransition + testTimings.Reimage + testTimings.Boot)
	s := r.b.State()
	assert.True(t, s.ReimageFailed)
	assert.False(t, s.OSRunning)
	assert.Zero(t, s.ReimageCount)
	assert.Equal(t, 1, r.count(events.ReimageFailed))
	_, st := r.taskState(loc)
	assert.Equal(t, taskException, st)
	assert.Equal(t, "Critical", field(r.system(), "Status", "Health"))

	// No bootable OS until a reimage succeeds.
	r.reset("ForceRestart")
	r.clk.Advance(2*testTimings.PowerTransition + testTimings.Boot)
	assert.False(t, r.b.State().OSRunning)

	r.b.ClearFault(faults.ReimageFails)
	r.do(http.MethodPost, sysCDPath+ejectAction, nil)
	r.reimageTo("4.2.0")
	r.clk.Advance(2*testTimings.PowerTransition + testTimings.Reimage + testTimings.Boot)
	assert.Equal(t, State{Power: "On", OSRunning: true, RuntimeVersion: "4.2.0", ReimageCount: 1}, r.b.State())
	assert.Equal(t, 2, r.count(events.Fault), "set and clear")
}

func TestReimageHangsUntilPowerAction(t *testing.T) {
	r := newRig(t)
	r.b.SetFault(faults.ReimageHangs, 0)
	loc := r.reimageTo("4.2.0")
	r.clk.Advance(2*testTimings.PowerTransition + 100*testTimings.Reimage)
	assert.True(t, r.b.State().Reimaging)
	code, st := r.taskState(loc)
	assert.Equal(t, http.StatusAccepted, code)
	assert.Equal(t, taskRunning, st)

	r.reset("ForceOff")
	r.clk.Advance(testTimings.PowerTransition)
	s := r.b.State()
	assert.Equal(t, "Off", s.Power)
	assert.True(t, s.ReimageFailed, "an interrupted install leaves no bootable OS")
	_, st = r.taskState(loc)
	assert.Equal(t, taskCancelled, st)
	assert.Equal(t, 1, r.count(events.ReimageFailed))
}

func TestPowerOnFailsLeavesMachineOff(t *testing.T) {
	r := newRig(t)
	r.reset("ForceOff")
	r.clk.Advance(testTimings.PowerTransition)
	r.b.SetFault(faults.PowerOnFails, 0)
	on := r.reset("On")
	require.Equal(t, http.StatusAccepted, on.code, "accepted like a real BMC would")
	r.clk.Advance(testTimings.PowerTransition + testTimings.Boot)
	assert.Equal(t, "Off", r.b.State().Power)
	assert.Equal(t, "Off", r.system()["PowerState"])
	_, st := r.taskState(on.header.Get("Location"))
	assert.Equal(t, taskException, st)
	assert.Zero(t, r.count(events.PowerOn))
}

func TestOnChangeSeesEveryStep(t *testing.T) {
	r := newRig(t)
	r.reimageTo("4.2.0")
	r.clk.Advance(2*testTimings.PowerTransition + testTimings.Reimage + testTimings.Boot)
	r.mu.Lock()
	defer r.mu.Unlock()
	var steps []string
	for _, s := range r.changes {
		switch {
		case s.Reimaging:
			steps = append(steps, "reimaging")
		case s.Booting:
			steps = append(steps, "booting")
		case s.OSRunning:
			steps = append(steps, "running")
		case s.PoweringOn:
			steps = append(steps, "powering on")
		default:
			steps = append(steps, s.Power)
		}
	}
	assert.Equal(t, []string{"On", "Off", "powering on", "reimaging", "booting", "running"}, steps)
	for _, e := range r.log.Events() {
		assert.Equal(t, "rack1-c1", e.BMM)
		assert.Equal(t, "rack1", e.Rack)
	}
}

func TestRestartThatNeverComesBackLogsPowerOff(t *testing.T) {
	r := newRig(t)
	r.b.SetFault(faults.PowerOnFails, 0)
	loc := r.reset("ForceRestart").header.Get("Location")
	r.clk.Advance(2 * testTimings.PowerTransition)
	assert.Equal(t, "Off", r.b.State().Power)
	_, st := r.taskState(loc)
	assert.Equal(t, taskException, st)
	assert.Equal(t, 1, r.count(events.PowerOff))
}
