package server

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/metrics"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// The server's limits are the site's (docs/time-limits.md): drain and VM
// shutdown proceed after theirs, the reimage fails after its own. An
// upgrade started with --drain-timeout or --vm-shutdown-timeout overrides
// the first two for its run.
func serverLimits(ctx workflow.Context, cs api.ClusterState, in api.ServerInput) (drain, vms, reimage kernel.Limit) {
	t := kernel.SiteLimits(ctx, cs)
	if in.Limits != nil {
		t = in.Limits.OrDefaults() // the table its run limit was derived from
	}
	drain, vms, reimage = kernel.TimeoutLimit(t, "drain"), kernel.TimeoutLimit(t, "vmShutdown"), kernel.TimeoutLimit(t, "reimage")
	if in.DrainTimeout > 0 {
		drain = kernel.Limit{D: in.DrainTimeout, Key: "the upgrade's drainTimeout"}
	}
	if in.VMShutdownTimeout > 0 {
		vms = kernel.Limit{D: in.VMShutdownTimeout, Key: "the upgrade's vmShutdownTimeout"}
	}
	return drain, vms, reimage
}

// ServerUpgradeWorkflow upgrades one server (docs/behaviour-upgrade.md#upgrade): cordon, drain
// tenant pods (at most 20 min, then proceed), shut down tenant VMs (at most
// 10 min, then proceed), bring its firmware to the target's baseline where
// it is below (server_firmware.go), reimage to the target, wait until provisioned and
// the node is Ready on the new version, uncordon, restart the VMs that were
// running. It holds a disruption lease from the ledger throughout. A
// failure is returned as a result (Succeeded false), not an error, so the
// rack can count it; the server then stays cordoned.
func ServerUpgradeWorkflow(ctx workflow.Context, in api.ServerInput) (api.ServerResult, error) {
	res, err := serverUpgrade(ctx, in)
	metrics.ServerUpgraded(workflow.GetMetricsHandler(ctx), in.Cluster, res.Succeeded)
	return res, err
}

func serverUpgrade(ctx workflow.Context, in api.ServerInput) (api.ServerResult, error) {
	res := api.ServerResult{BMM: in.BMM}
	// Version 1 reads only this BMM's slice of the ledger: the whole site
	// made every server's history as large as the ledger.
	oneBMM := workflow.GetVersion(ctx, changeServerReadsOneBmm, workflow.DefaultVersion, 1) != workflow.DefaultVersion
	// Its ledger calls (about eight) are local activities: each is then one
	// Update, not also an activity task and a workflow task of its own.
	if workflow.GetVersion(ctx, changeServerLedgerLocal, workflow.DefaultVersion, 1) == 1 {
		ctx = kernel.LocalLedger(ctx)
	}
	o := kernel.Opening{OneBMM: oneBMM, Req: lease.Request{
		BMM: in.BMM, Holder: workflow.GetInfo(ctx).WorkflowExecution.ID, Operation: lease.OpUpgrade, AllowWhileUpdating: true}}
	h, stage, err := kernel.LedgerOf(in.Cluster).Open(ctx, o)
	// Refused because a remediation holds the server: wait for it, once.
	if stage == kernel.OpenLease && workflow.GetVersion(ctx, changeServerWaitsForRemediation, workflow.DefaultVersion, 1) == 1 {
		waited, werr := awaitRemediation(ctx, in)
		if werr != nil {
			res.Error = werr.Error()
			return res, nil
		}
		if waited {
			h, stage, err = kernel.LedgerOf(in.Cluster).Open(ctx, o)
		}
	}
	switch stage {
	case kernel.OpenRead, kernel.OpenPrecheck:
		res.Error = err.Error()
		return res, nil
	case kernel.OpenLease:
		res.Error = "no disruption lease: " + err.Error()
		res.Gated, res.GateReason = kernel.GateReason(err, "")
		return res, nil
	}
	// Released however this ends: success, failure, cancellation.
	defer h.Release()
	bm := h.BM
	t := kernel.TargetsFor(h.CS, bm)
	member := kernel.WipedMemberOf(h.Whole, bm)
	if in.Limits != nil {
		t.Limits = in.Limits.OrDefaults()
		if member != nil {
			member.Limits = t.Limits
		}
	}
	// Marked after the plan was made: never touched (its node may be gone,
	// and a failure recorded now would overwrite the mark).
	if why := upgradeplan.OutOfService(bm); why != "" &&
		workflow.GetVersion(ctx, changeServerSkipsOutOfService, workflow.DefaultVersion, 1) != workflow.DefaultVersion {
		res.Error = "bmm " + in.BMM + " is out of service, not upgraded: " + why
		return res, nil
	}

	if bm.RuntimeVersion == in.TargetVersion && bm.DetailedStatus == model.BMMProvisioned && bm.ReadyState == model.ReadyTrue {
		// Below the target's firmware baseline all the same: the firmware
		// in a window of its own (server_firmware_at_target.go).
		var done bool
		if res, done = firmwareAtTarget(ctx, h, in, t, res); done {
			return res, nil
		}
		// A server an earlier run failed and left cordoned, since brought
		// back on the target (a remediation, a reimage): finishing it is
		// giving its node back, as a successful upgrade would have.
		if bm.CordonStatus == model.Cordoned &&
			workflow.GetVersion(ctx, changeServerUncordonsLeftBehind, workflow.DefaultVersion, 1) != workflow.DefaultVersion {
			if err := kernel.NewSteps(ctx, in.Cluster, t).Uncordon(); err != nil {
				res.Error = fmt.Sprintf("%s is at %s but uncordon failed: %v", in.BMM, in.TargetVersion, temporalerr.Message(err))
				return res, nil
			}
		}
		res.Succeeded, res.RuntimeVersion, res.AlreadyAtTarget = true, bm.RuntimeVersion, true
		return res, nil
	}
	drain, vmTimeout, reimageLimit := serverLimits(ctx, h.CS, in)
	st := kernel.NewSteps(ctx, in.Cluster, t)

	// Evacuated, then the live gate again: the drain may have taken
	// minutes, and the reimage takes the member down. Refused, the server
	// stays cordoned and the upgrade pauses, then runs the step again.
	ev, err := st.EvacuateThenGate(h, drain, vmTimeout)
	var ok bool
	if res, ok = st.Evacuated(res, ev, err, "before the reimage: "); !ok {
		return res, nil
	}
	// The target's firmware, in this same disruption (never a second drain).
	fw, err := serverFirmware(ctx, st, h.CS, in, kernel.TimeoutLimit(t.Limits, "firmware"))
	res.Firmware = fw
	if err != nil {
		return st.Failed(res, "firmware", err), nil
	}

	st.Status(model.BMMDeprovisioning, "Reimaging to runtime "+in.TargetVersion)
	if out, err := st.ReimageUntilBack(kernel.ReimageJob{Verb: "Reimage", ImageURL: in.ImageURL, Version: in.TargetVersion,
		Limit: reimageLimit, WaitLimit: func() time.Duration { return preInBandWaitLimit },
		Provisioning: func() {
			st.Status(model.BMMProvisioning, "Waiting for node "+t.Node+" to rejoin on "+in.TargetVersion)
		}, Member: member}); err != nil {
		step := "reimage"
		if out.Waiting {
			step = "node readiness"
		}
		return st.Failed(res, step, err), nil
	}
	if err := st.Uncordon(); err != nil {
		return st.Failed(res, "uncordon", err), nil
	}
	if _, err := st.StartVMs(); err != nil {
		// The server is upgraded; VMs that did not come back are reported.
		res.Error = "VMs not restarted: " + err.Error()
	}
	done := st
	if workflow.GetVersion(ctx, changeServerRecordsVersionWhenCancelled, workflow.DefaultVersion, 1) == 1 {
		// The reimage is done: the ledger learns the version even when the
		// run is being cancelled now, else the upgrade may finish at the
		// Target with this server recorded on the old version, which no
		// re-run would ever find.
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		done = kernel.NewSteps(dctx, in.Cluster, t)
	}
	done.Record(api.BMMPatch{BMM: in.BMM, RuntimeVersion: api.Str(in.TargetVersion), DetailedStatus: api.Str(model.BMMProvisioned),
		DetailedStatusMessage: api.Str(""), PowerState: api.Str(model.PowerOn), ReadyState: api.Str(model.ReadyTrue),
		CordonStatus: api.Str(model.Uncordoned)})
	res.Succeeded, res.RuntimeVersion = true, in.TargetVersion
	return res, nil
}

// preInBandWaitLimit bounded the wait for the node after the BMC's reimage
// in the histories recorded before reimage-in-band (2026-11-22), the only
// runs that take that path (kernel.ReimageJob.WaitLimit).
const preInBandWaitLimit = 30 * time.Minute
