package server

import (
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// A server already on the target runtime may still be below the target's
// firmware baseline: repaired with a part that shipped older firmware and
// replaced with --force, or upgraded before the baseline was declared.
// Running the upgrade again converges it (docs/firmware-replace-upgrade.md#upgrade): the
// firmware gets a disruption window of its own — cordon, drain, VMs down,
// the live gate again, the firmware, the node back on a new boot at the
// target, uncordon, VMs up — and no reimage: its OS is already the
// target's. Control-plane members never come here (the plan skips a KCP
// at the target), so the window never has an etcd member to wait for.

// firmwareAtTarget reads the firmware of a server at the target and, when
// it is below the baseline, brings it there in a window of its own. done
// is false when there is nothing to do (no baseline, at the baseline, a
// history from before this step): the caller finishes the server as at
// the target. res carries the window's outcome otherwise.
func firmwareAtTarget(ctx workflow.Context, h kernel.Held, in api.ServerInput, t kernel.Target, res api.ServerResult) (api.ServerResult, bool) {
	baseline := h.CS.Firmware[in.TargetVersion]
	if baseline == nil || !upgradeplan.FirmwareAtTarget(h.BM) ||
		workflow.GetVersion(ctx, changeServerFirmwareAtTarget, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return res, false
	}
	st := kernel.NewSteps(ctx, in.Cluster, t)
	s, err := st.ReadFirmware()
	if err != nil {
		// Nothing disrupted yet: the server keeps its state; the upgrade
		// counts it failed, and a re-run reads it again.
		res.Error = fmt.Sprintf("%s is at %s but its firmware inventory could not be read to check it against the baseline: %s",
			in.BMM, in.TargetVersion, temporalerr.Message(err))
		res.Step = "firmware"
		return res, true
	}
	p := firmware.PlanFor(baseline, s)
	for _, r := range p.Unknown {
		res.Firmware = append(res.Firmware, fmt.Sprintf("%s not judged: %s", r.Component, r.Why))
	}
	if len(p.Apply) == 0 {
		return res, false
	}
	drain, vmTimeout, reimageLimit := serverLimits(ctx, h.CS, in)
	ev, err := st.EvacuateThenGate(h, drain, vmTimeout)
	var ok bool
	if res, ok = st.Evacuated(res, ev, err, "before the firmware: "); !ok {
		return res, true
	}
	previous, err := st.BootBefore()
	if err != nil {
		return st.Failed(res, "firmware", err), true
	}
	st.Status(model.BMMDeprovisioning, fmt.Sprintf("Applying firmware %s (baseline of runtime %s; the OS is already at it)",
		strings.Join(p.Names(), ", "), in.TargetVersion))
	done, err := st.ApplyFirmware(p.Apply, kernel.TimeoutLimit(t.Limits, "firmware"))
	afterBMCFirmware(ctx, in, p.Apply, done)
	res.Firmware = append(kernel.FirmwareDone(done), res.Firmware...)
	if err != nil {
		return st.Failed(res, "firmware", err), true
	}
	if hostStarted(done) {
		// Back means Ready on a boot other than the one before, at the
		// target: the restart row, within what a reimage would have had.
		back := kernel.TimeoutLimit(t.Limits, "restart")
		if reimageLimit.D < back.D {
			back = reimageLimit
		}
		st.Status(model.BMMProvisioning, "Waiting for node "+t.Node+" to come back after its firmware")
		if _, err := st.WaitBack(kernel.After(previous, bmc.PowerResult{ResetType: "firmware"}), in.TargetVersion, back); err != nil {
			return st.Failed(res, "node readiness", err), true
		}
	}
	if err := st.Uncordon(); err != nil {
		return st.Failed(res, "uncordon", err), true
	}
	if _, err := st.StartVMs(); err != nil {
		res.Error = "VMs not restarted: " + err.Error()
	}
	st.Record(api.BMMPatch{DetailedStatus: api.Str(model.BMMProvisioned), DetailedStatusMessage: api.Str(""),
		PowerState: api.Str(model.PowerOn), ReadyState: api.Str(model.ReadyTrue), CordonStatus: api.Str(model.Uncordoned)})
	res.Succeeded, res.RuntimeVersion = true, in.TargetVersion
	return res, true
}

// hostStarted: some update reset or started the host, so its node went
// away and must be seen back.
func hostStarted(done []bmc.ApplyFirmwareResult) bool {
	for _, r := range done {
		if r.HostStarted {
			return true
		}
	}
	return false
}
