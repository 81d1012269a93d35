package redfish

import (
	"net/http"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
)

// phase is where the machine is between power, firmware and OS.
type phase int

const (
	phaseOff         phase = iota
	phasePoweringOn        // power is still off until the transition completes
	phasePoweringOff       // power is still on until the transition completes
	phaseBooting           // firmware + OS boot
	phaseReimaging         // installer running from the virtual CD
	phaseRunning           // OS up
	phaseNoOS              // powered on, nothing booted (failed install, BIOS setup)
)

// resetAliases are reset types the lab treats as another: ForceOn is On
// for a machine that is off, PowerCycle is a forced restart.
var resetAliases = map[string]string{"ForceOn": "On", "PowerCycle": "ForceRestart"}

type bootOverride struct {
	enabled string // Disabled | Once | Continuous
	target  string // None | Pxe | Cd | Hdd | BiosSetup
	mode    string // UEFI | Legacy
}

// machine is the simulated server; guarded by BMC.mu.
type machine struct {
	phase         phase
	power         string // settled power: "On" | "Off"
	restarting    bool   // the power-off in progress is the first half of a restart
	cycleType     string // reset type that started the current power cycle
	inSetup       bool   // phaseNoOS because the override said BiosSetup
	version       string
	reimageTo     string
	reimages      int
	reimageFailed bool
	override      bootOverride

	task  *task // tracks the effect of the last accepted reset
	timer stopper
	epoch int // bumped on every schedule, so a stale timer does nothing
}

// apiError is a request the BMC refuses; handlers render it as a Redfish
// error body.
type apiError struct {
	status  int
	id      string // Base message registry id, without the registry prefix
	message string
}

func (e *apiError) Error() string { return e.message }

// resetLocked applies a ComputerSystem.Reset. It returns the task tracking
// the effect, or nil when the machine is already where the reset would
// take it (answered 204). Restarting a powered-off machine is refused with
// 409, as iDRAC does; power it on instead.
func (b *BMC) resetLocked(rt string) (*task, *apiError) {
	if a, ok := resetAliases[rt]; ok {
		rt = a
	}
	if b.gracefulIgnoredLocked(rt) || b.faultActiveLocked(faults.ResetIgnored) {
		return nil, nil // answered 204; nothing happens
	}
	switch rt {
	case "On":
		switch {
		case b.phase == phaseOff:
			t := b.newResetTaskLocked(rt)
			b.lagLocked(func() { b.startPowerOnLocked(rt) })
			return t, nil
		case b.phase == phasePoweringOff && !b.restarting:
			return nil, &apiError{http.StatusConflict, "ResourceInUse", "The system is powering off; retry On once PowerState is Off."}
		default:
			return nil, nil // on, or on its way up
		}
	case "ForceOff", "GracefulShutdown":
		switch {
		case b.phase == phaseOff, b.phase == phasePoweringOff && !b.restarting:
			return nil, nil
		case b.phase == phasePoweringOn:
			// Power never came back on: stop where we are. The power went
			// off silently as the first half of a restart, so say so now.
			b.cancelTaskLocked(rt)
			b.stopTimerLocked()
			b.phase = phaseOff
			if b.cycleType != "On" {
				b.emitLocked(events.PowerOff, map[string]any{"resetType": rt})
			}
			b.changedLocked()
			return nil, nil
		case b.phase == phasePoweringOff: // first half of a restart: stay off
			t := b.newResetTaskLocked(rt)
			b.restarting = false
			b.cycleType = rt
			return t, nil
		}
		b.interruptReimageLocked(rt)
		t := b.newResetTaskLocked(rt)
		b.lagLocked(func() { b.startPowerOffLocked(rt, false) })
		return t, nil
	case "ForceRestart", "GracefulRestart":
		switch b.phase {
		case phaseOff, phasePoweringOn:
			return nil, &apiError{http.StatusConflict, "ActionNotSupported", "The system is powered off; use ResetType On to power it on."}
		case phasePoweringOff:
			if b.restarting {
				return nil, nil
			}
			return nil, &apiError{http.StatusConflict, "ResourceInUse", "The system is powering off; retry once PowerState is Off."}
		}
		b.interruptReimageLocked(rt)
		t := b.newResetTaskLocked(rt)
		b.emitLocked(events.Reset, map[string]any{"resetType": rt})
		b.lagLocked(func() { b.startPowerOffLocked(rt, true) })
		return t, nil
	}
	return nil, &apiError{http.StatusBadRequest, "ActionParameterNotSupported",
		"ResetType " + rt + " is not supported; use one of On, ForceOff, GracefulShutdown, ForceRestart, GracefulRestart, ForceOn, PowerCycle."}
}

// lagLocked starts an accepted reset's transition, after the profile's
// ResetDelay: real BMCs answer first and show the reset a moment later.
func (b *BMC) lagLocked(start func()) {
	if b.prof.ResetDelay <= 0 {
		start()
		return
	}
	b.scheduleLocked(b.prof.ResetDelay, start)
}

// gracefulIgnoredLocked: a graceful reset is an ACPI request the OS must
// honour. With no OS running (failed install, BIOS setup) nothing answers
// it: the BMC accepts the request and the machine stays on, so clients
// need a limit and ForceOff. The helpful profile powers off anyway.
func (b *BMC) gracefulIgnoredLocked(rt string) bool {
	return !b.prof.Helpful && b.phase == phaseNoOS && (rt == "GracefulShutdown" || rt == "GracefulRestart")
}

func (b *BMC) startPowerOffLocked(rt string, restart bool) {
	b.phase = phasePoweringOff
	b.restarting = restart
	b.cycleType = rt
	b.inSetup = false
	b.changedLocked()
	b.scheduleLocked(b.cfg.Timings.PowerTransition, b.powerOffDoneLocked)
}

func (b *BMC) powerOffDoneLocked() {
	b.power = "Off"
	if b.restarting {
		b.restarting = false
		b.changedLocked()
		b.startPowerOnLocked(b.cycleType)
		return
	}
	b.phase = phaseOff
	b.emitLocked(events.PowerOff, map[string]any{"resetType": b.cycleType})
	b.finishTaskLocked(taskCompleted, "The system is powered off.")
	b.changedLocked()
}

func (b *BMC) startPowerOnLocked(rt string) {
	b.phase = phasePoweringOn
	if rt == "On" {
		b.cycleType = rt
	}
	b.changedLocked()
	b.scheduleLocked(b.cfg.Timings.PowerTransition, b.powerOnDoneLocked)
}

// powerOnDoneLocked: with faults.PowerOnFails the request was accepted but the
// machine stays Off and the task ends in Exception.
func (b *BMC) powerOnDoneLocked() {
	if b.faultActiveLocked(faults.PowerOnFails) {
		b.phase = phaseOff
		if b.cycleType != "On" { // a restart that never came back: the machine is off now
			b.emitLocked(events.PowerOff, map[string]any{"resetType": b.cycleType, "reason": string(faults.PowerOnFails)})
		}
		b.finishTaskLocked(taskException, "The system did not power on (injected "+string(faults.PowerOnFails)+" fault).")
		b.changedLocked()
		return
	}
	b.power = "On"
	if b.cycleType == "On" {
		b.emitLocked(events.PowerOn, map[string]any{"resetType": "On"})
	}
	if !b.prof.Helpful {
		// A vendor's reset job ends with the power cycle: the BMC cannot
		// see whether an OS comes up.
		b.finishTaskLocked(taskCompleted, "The system is powered on.")
	}
	// Host firmware is read at POST; staged updates install first.
	if d := b.firmwareAtHostStartLocked(); d > 0 {
		b.phase = phaseBooting
		b.scheduleLocked(d, b.startBootLocked)
	} else {
		b.startBootLocked()
	}
	b.changedLocked()
}

// startBootLocked picks the boot source like firmware does: a one-time
// override is consumed (reset to Disabled/None) by the boot that uses it.
// The profile's virtual-CD target (Cd, UsbCd on Supermicro, whose Cd is the
// empty physical drive) boots an installer from a slot the firmware boots
// from. The lab has no PXE server, so Pxe and a CD without an installer
// image fall through to the disk.
func (b *BMC) startBootLocked() {
	target, mode := "Hdd", b.override.mode
	switch b.override.enabled {
	case "Once":
		target = b.override.target
		b.override.enabled, b.override.target, b.override.mode = "Disabled", "None", b.prof.bootModeDefault()
	case "Continuous":
		target = b.override.target
	}
	if target == b.prof.VirtualCDBoot {
		if drive, v, ok := b.bootImageLocked(); ok && b.bootsInstallerLocked(target, mode) {
			b.startReimageLocked(drive, v)
			return
		}
	}
	if target == "BiosSetup" {
		b.phase = phaseNoOS
		b.inSetup = true
		b.finishTaskLocked(taskCompleted, "The system entered BIOS setup.")
		return
	}
	b.phase = phaseBooting
	b.scheduleLocked(b.cfg.Timings.Boot, b.bootDoneLocked)
}

func (b *BMC) bootDoneLocked() {
	if b.reimageFailed {
		b.phase = phaseNoOS
		b.finishTaskLocked(taskException, "No bootable operating system: the last reimage failed.")
	} else {
		b.phase = phaseRunning
		b.finishTaskLocked(taskCompleted, "The system is running its operating system.")
	}
	b.changedLocked()
}

// startReimageLocked runs the installer. With faults.ReimageHangs it never
// finishes; only a power action gets the machine out (and fails the
// reimage). Clearing the fault does not revive a hung installer.
func (b *BMC) startReimageLocked(drive int, v string) {
	b.phase = phaseReimaging
	b.reimageTo = v
	b.install = drive
	b.emitLocked(events.ReimageStart, map[string]any{"version": v, "from": b.version, "image": redactURL(b.drives[drive].image)})
	if b.faultActiveLocked(faults.ReimageHangs) {
		b.stopTimerLocked()
		return
	}
	b.scheduleLocked(b.cfg.Timings.Reimage, b.reimageDoneLocked)
}

func (b *BMC) reimageDoneLocked() {
	v := b.reimageTo
	b.reimageTo = ""
	if b.faultActiveLocked(faults.ReimageFails) {
		b.reimageFailed = true
		b.phase = phaseNoOS
		b.emitLocked(events.ReimageFailed, map[string]any{"version": v, "reason": "injected " + string(faults.ReimageFails) + " fault"})
		b.finishTaskLocked(taskException, "Reimage to "+v+" failed: no bootable operating system.")
		b.changedLocked()
		return
	}
	from := b.version
	b.version = v
	b.reimages++
	b.reimageFailed = false
	b.emitLocked(events.ReimageDone, map[string]any{"version": v, "from": from})
	b.phase = phaseBooting
	b.scheduleLocked(b.cfg.Timings.Boot, b.bootDoneLocked)
	b.changedLocked()
}

// interruptReimageLocked: a power action during the install leaves a
// half-written disk.
func (b *BMC) interruptReimageLocked(rt string) {
	if b.phase != phaseReimaging {
		return
	}
	b.reimageFailed = true
	b.emitLocked(events.ReimageFailed, map[string]any{"version": b.reimageTo, "reason": "interrupted by " + rt})
	b.reimageTo = ""
}

// scheduleLocked replaces the pending transition with step after d.
func (b *BMC) scheduleLocked(d time.Duration, step func()) {
	b.stopTimerLocked()
	b.epoch++
	ep := b.epoch
	b.timer = b.clk.AfterFunc(d, func() {
		b.mu.Lock()
		if b.closed || b.epoch != ep {
			b.mu.Unlock()
			return
		}
		b.timer = nil
		step()
		b.mu.Unlock()
		b.flush()
	})
}

func (b *BMC) stopTimerLocked() {
	b.epoch++
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
}
