package redfish

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
)

// How the lab's BMCs take firmware, each shape from where it was learnt:
//
//   - SimpleUpdate (ImageURI, TransferProtocol, @Redfish.OperationApplyTime)
//     and a multipart push to MultipartHttpPushUri (parts UpdateParameters
//     and UpdateFile), answered 202 with a task monitor: DMTF's
//     UpdateService schema (DSP0268), gofish's UpdateService, Ironic's
//     redfish firmware interface (ironic/drivers/modules/redfish/firmware.py:
//     SimpleUpdate, then the task monitor, then a reboot to finish).
//   - An update of host firmware (BIOS, NIC, storage) is read by the host
//     at POST: it shows in FirmwareInventory only after the next host
//     start. On iDRAC it is a job staged until that reset (the task stays
//     Pending); elsewhere it installs now and activates then.
//   - A BMC updating its own firmware resets itself and does not answer for
//     a while (Timings.BMCReset): sessions and tasks are lost (bmclib's
//     reset-bmc-post-install step).
//   - Supermicro wants the host off before a BIOS update (bmclib's
//     power-off-host install step) and takes pushed images only (bmclib
//     providers/supermicro x12_firmware.go); while an install runs, another
//     update is refused as busy (there: OemFirmwareAlreadyInUpdateMode).
//
// The lab reads what an image installs from its file name,
// <kind>-<version>.<ext> (bios-1.14.0.exe, bmc-7.10.30.00.bin); any other
// package fails verification, as a package for another platform does.

// Task states of firmware jobs beyond tasks.go's.
const taskPending = "Pending"

// updateAsk is an update request as the BMC received it.
type updateAsk struct {
	image, applyTime, via string
	targets               []string // Targets (SimpleUpdate, or the push's UpdateParameters)
	protocol              string   // TransferProtocol; "" when not sent
}

var packageName = regexp.MustCompile(`(?i)^(bios|bmc|nic|storage)-([0-9][0-9A-Za-z._-]*)\.[A-Za-z0-9]+$`)

// fwJob is one accepted update.
type fwJob struct {
	task      *task
	part      *fwPart
	version   string
	applyTime string
	started   time.Time
	stuck     bool
	// held: pushed, kept until StartUpdate (update_shapes.go); verified
	// once the BMC has checked the package.
	held, verified bool
}

// startUpdateLocked handles an accepted update request.
func (b *BMC) startUpdateLocked(ask updateAsk) (*task, *apiError) {
	if j := b.fwRunning; j != nil {
		status, id := b.prof.BusyStatus, b.prof.BusyID
		if status == 0 {
			status, id = http.StatusServiceUnavailable, "ServiceTemporarilyUnavailable"
		}
		return nil, &apiError{status, id, "An update is in progress (task " + j.task.id + "); retry once it is done."}
	}
	m := packageName.FindStringSubmatch(pathBase(ask.image))
	var part *fwPart
	if m != nil {
		part = b.partLocked(strings.ToLower(m[1]))
	}
	if e := b.checkUpdateShapeLocked(ask, part); e != nil {
		return nil, e
	}
	t := b.tasks.add("Firmware update", updatePath, map[string]any{"ImageURI": redactURL(ask.image), "Via": ask.via})
	switch {
	case b.cfg.Fetchable != nil && ask.via == "SimpleUpdate" && !b.cfg.Fetchable(ask.image):
		t.finish(taskException, "The image could not be downloaded from "+redactURL(ask.image)+".")
		return t, nil
	case part == nil:
		t.finish(taskException, "The package "+pathBase(ask.image)+" is not a valid update package for this system.")
		return t, nil
	case slices.Contains(b.prof.HostOffFor, part.kind) && b.power != "Off":
		t.finish(taskCancelled, "Refused.")
		return nil, &apiError{http.StatusConflict, "ResourceInUse", "The host must be powered off before its " + strings.ToUpper(part.kind) + " firmware is updated."}
	}
	j := &fwJob{task: t, part: part, version: m[2], applyTime: ask.applyTime, stuck: b.faultActiveLocked(faults.FirmwareStuck)}
	held := ask.via == "MultipartPush" && b.prof.Updates.StartUpdate
	staged := !held && b.stagedLocked(j)
	b.emitLocked(events.FirmwareUpdate, map[string]any{"kind": part.kind, "version": j.version, "from": part.version,
		"image": redactURL(ask.image), "via": ask.via, "staged": staged, "awaitsStart": held, "task": t.id})
	switch {
	case held:
		b.holdLocked(j)
	case staged:
		b.stageLocked(j)
	default:
		b.installLocked(j, false)
	}
	return t, nil
}

// stagedLocked: the job waits for the next host reset (host firmware
// asked OnReset, or a BMC that stages every host update).
func (b *BMC) stagedLocked(j *fwJob) bool {
	return j.part.kind != KindBMC && (j.applyTime == "OnReset" || b.prof.StagesHostUpdates)
}

// stageLocked keeps the job for the next host reset; its task says so in
// the profile's words (Pending on iDRAC, Scheduled on Supermicro X12).
func (b *BMC) stageLocked(j *fwJob) {
	j.task.state, j.task.message = b.prof.Updates.stagedState(), "Scheduled: the update applies at the next host reset."
	b.fwStaged = append(b.fwStaged, j)
}

// installLocked runs a job: Running with PercentComplete rising over
// Timings.Firmware, then its end. atPOST: the host is starting, so host
// firmware is active at once.
func (b *BMC) installLocked(j *fwJob, atPOST bool) {
	j.task.state, j.task.message = taskRunning, ""
	j.started = b.clk.Now()
	b.fwRunning = j
	d := b.cfg.Timings.Firmware
	j.task.progress = func() int {
		if d <= 0 {
			return 99
		}
		pct := int(100 * b.clk.Now().Sub(j.started) / d)
		if j.stuck {
			pct = min(pct, 40)
		}
		return max(0, min(pct, 99))
	}
	if j.stuck {
		return // never leaves Running; the service stays busy
	}
	b.afterLocked(d, func() { b.endInstallLocked(j, atPOST) })
}

func (b *BMC) endInstallLocked(j *fwJob, atPOST bool) {
	if b.fwRunning == j {
		b.fwRunning = nil
	}
	p := j.part
	switch {
	case b.faultActiveLocked(faults.FirmwareException):
		j.task.finish(taskException, "The update of "+p.name+" failed: the image failed verification (injected "+string(faults.FirmwareException)+" fault).")
		b.emitLocked(events.FirmwareFailed, map[string]any{"kind": p.kind, "version": j.version, "reason": "injected " + string(faults.FirmwareException) + " fault"})
		return
	case b.faultActiveLocked(faults.FirmwareUnchanged):
		j.task.finish(taskCompleted, "The update of "+p.name+" completed successfully.")
		b.emitLocked(events.FirmwareDone, map[string]any{"kind": p.kind, "from": p.version, "to": p.version, "reason": "injected " + string(faults.FirmwareUnchanged) + " fault"})
		return
	}
	switch {
	case p.kind == KindBMC:
		j.task.finish(taskCompleted, "The update of "+p.name+" completed; the BMC restarts.")
		b.activateLocked(p, j.version)
		b.resetBMCLocked()
	case atPOST:
		j.task.finish(taskCompleted, "The update of "+p.name+" completed successfully.")
		b.activateLocked(p, j.version)
	default:
		j.task.finish(taskCompleted, "The update of "+p.name+" was installed; it takes effect at the next host reset.")
		p.pending = j.version
	}
}

func (b *BMC) activateLocked(p *fwPart, v string) {
	from := p.version
	p.previous, p.version, p.pending = from, v, ""
	b.emitLocked(events.FirmwareDone, map[string]any{"kind": p.kind, "from": from, "to": v})
}

// resetBMCLocked: the BMC reboots into its new firmware. Until
// Timings.BMCReset passes it drops every connection; its sessions and
// tasks are gone when it is back. The host keeps running.
func (b *BMC) resetBMCLocked() {
	b.awayUntil = b.clk.Now().Add(b.cfg.Timings.BMCReset)
	b.sessions = sessionStore{}
	b.tasks = taskList{prefix: b.prof.TaskPrefix, next: b.tasks.next}
	detail := map[string]any{"away": b.cfg.Timings.BMCReset.String()}
	if b.faultActiveLocked(faults.AccountsReset) {
		// Back with its factory accounts (accountsLocked makes them again).
		b.accounts, b.accountSeq = nil, 0
		detail["accounts"] = "reset to the factory's"
	}
	b.emitLocked(events.BMCReset, detail)
}

// awayLocked reports whether the BMC is rebooting after its own update.
func (b *BMC) awayLocked() bool { return b.clk.Now().Before(b.awayUntil) }

// firmwareAtHostStartLocked runs when the host powers on: installed host
// firmware becomes active and staged jobs run during POST. It returns how
// long POST takes longer for them.
func (b *BMC) firmwareAtHostStartLocked() time.Duration {
	for _, p := range b.fw {
		if p.pending != "" {
			b.activateLocked(p, p.pending)
		}
	}
	if len(b.fwStaged) == 0 {
		return 0
	}
	jobs := b.fwStaged
	b.fwStaged = nil
	var longest time.Duration
	for _, j := range jobs {
		j.stuck = b.faultActiveLocked(faults.FirmwareStuck)
		b.installLocked(j, true)
		longest = b.cfg.Timings.Firmware
	}
	return longest
}

// afterLocked runs f under the lock after d, on the BMC's clock, unless
// the BMC was closed. Firmware jobs keep their own timers: the machine's
// single pending transition is power's and boot's.
func (b *BMC) afterLocked(d time.Duration, f func()) {
	b.clk.AfterFunc(d, func() {
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			return
		}
		f()
		b.changedLocked()
		b.mu.Unlock()
		b.flush()
	})
}
