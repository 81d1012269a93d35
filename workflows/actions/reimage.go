package actions

import (
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// Reimage and replace (docs/behaviour.md#actions). Both evacuate the BMM first (cordon,
// drain tenant pods, shut down VMs — each proceeding after its limit),
// reinstall the runtime the BMM runs now (never an upgrade: the ledger's
// version, image from the cluster's template), wait until the node is
// Ready on it, uncordon, and restart the VMs that were running.
//
// Replace additionally records the new hardware facts before provisioning
// (the BMC credentials reference is what the provisioning logs in with),
// and on success clears the Unhealthy mark: it is the only action that
// does. storagePolicy decides what happens to tenant data; the lab has no
// RAID controller, so it shows as what happens to the VMs:
//   - Preserve: virtual disks are kept, VMs that were running restart;
//   - DiscardAll (default): virtual disks are wiped, so the VMs that ran
//     here stay stopped — recreate them (the result says so).
// Either way the OS is provisioned again: a replace follows hardware work.

func (a *action) reimage() error {
	ev, err := a.st.Evacuate(evacuateLimits(a.in, a.limits))
	if err != nil {
		return stepErr("evacuate", err)
	}
	a.noteEvacuation(ev)
	return a.provision(true, "reimaged", nil)
}

func (a *action) replace() error {
	ns, err := a.st.ReadNode()
	if err != nil {
		return stepErr("read node", err)
	}
	switch {
	case ns.IsReady() && a.rp.SafeguardMode == api.SafeguardNone && a.bm.CordonStatus != model.Cordoned:
		// A healthy BMM: replace evacuates it itself (safeguardMode None).
		ev, err := a.st.Evacuate(evacuateLimits(a.in, a.limits))
		if err != nil {
			return stepErr("evacuate", err)
		}
		a.noteEvacuation(ev)
	case ns.Exists:
		// Dead or already evacuated: keep new work off it, nothing to drain
		// (docs/behaviour.md#actions: a dead BMM goes straight to the replace).
		if err := a.st.Cordon(); err != nil {
			return stepErr("cordon", err)
		}
		// Cordoned is not evacuated: a node still Ready may run pods, the
		// last Ready rackroll worker among them (a remediation that kept
		// it, a cordon without evacuate). The drain takes the rest off and
		// refuses to take that one (internal/workerguard), as every drain.
		if ns.IsReady() && workflow.GetVersion(a.st.Ctx, changeReplaceDrainsReadyNode, workflow.DefaultVersion, 1) != workflow.DefaultVersion {
			drain, _ := evacuateLimits(a.in, a.limits)
			dr, err := a.st.Drain(drain)
			if err != nil {
				return stepErr("drain", err)
			}
			a.res.DrainTimedOut = dr.TimedOut
		}
	}
	hw := api.BMMPatch{BMC: &a.bm.BMC}
	if a.rp.BootMacAddress != "" {
		hw.BootMACAddress = api.Str(a.rp.BootMacAddress)
	}
	if a.rp.SerialNumber != "" {
		hw.SerialNumber = api.Str(a.rp.SerialNumber)
	}
	if a.rp.BMCMacAddress != "" {
		hw.BMCMACAddress = api.Str(a.rp.BMCMacAddress)
	}
	a.st.Record(hw)
	preserve := a.rp.StoragePolicy == api.StoragePreserve
	// A successful replace is what clears the Unhealthy mark (with the
	// failover's provisioning of a relabelled KCP), and the ladder starts afresh.
	hw.DetailedStatusMessage, hw.ClearUnhealthy, hw.ClearLadder = api.Str(""), true, true
	verb := "replaced (storagePolicy DiscardAll: virtual disks wiped, VMs that ran here stay stopped — recreate them)"
	if preserve {
		verb = "replaced (storagePolicy Preserve: data kept)"
	}
	// The baseline first (applyFirmware), inside this disruption: the
	// node is evacuated and the reinstall comes next.
	if err := a.applyFirmware(); err != nil {
		return stepErr("firmware", err)
	}
	return a.provision(preserve, verb+a.firmwareNote(), &hw)
}

// provision reinstalls the BMM's runtime and brings it back into service.
func (a *action) provision(restartVMs bool, verb string, extra *api.BMMPatch) error {
	limit := a.reimageLimit()
	version := kernel.InstallVersion(a.st.Ctx, a.cs, a.bm)
	tmpl := a.cs.ImageURLTemplate
	if tmpl == "" {
		tmpl = model.DefaultImageURLTemplate
	}
	// The evacuation may have taken minutes: a KCP's wipe is decided on a
	// fresh look at the rest of the control plane.
	if err := a.gateBeforeWipe(); err != nil {
		return stepErr("before the reinstall", err)
	}
	a.setStatus(model.BMMDeprovisioning, fmt.Sprintf("%s: reinstalling runtime %s", a.in.Action, version))
	if out, err := a.st.ReimageUntilBack(kernel.ReimageJob{Verb: "Reimage", ImageURL: strings.ReplaceAll(tmpl, "{version}", version),
		Version: version, Limit: limit, Force: true, WaitLimit: func() time.Duration { return limit.D },
		Provisioning: func() {
			a.setStatus(model.BMMProvisioning, fmt.Sprintf("%s: waiting for node %s to rejoin on %s", a.in.Action, a.t.Node, version))
		}, Member: kernel.WipedMemberOf(a.cs, a.bm)}); err != nil {
		if out.Waiting {
			return stepErr("wait for node Ready", err)
		}
		return stepErr("reimage", err)
	}
	if err := a.st.Uncordon(); err != nil {
		return stepErr("uncordon", err)
	}
	if err := a.st.CheckPower(model.PowerOn); err != nil {
		return stepErr("post-check", err)
	}
	msg := fmt.Sprintf("%s %s on runtime %s", verb, a.bm.Name, version)
	if restartVMs {
		// The reimage is done; VMs that do not come back are reported, not
		// failed (the server itself is fine).
		started, err := a.st.StartVMs()
		a.res.VMsStarted = started.Started
		if err != nil {
			msg += "; VMs not restarted: " + temporalerr.Message(err)
		}
	}
	p := api.BMMPatch{RuntimeVersion: api.Str(version), CordonStatus: api.Str(model.Uncordoned)}
	if extra != nil {
		p = p.Merge(*extra)
	}
	a.succeeded(msg, &p)
	kernel.KeysAfterReinstall(a.st.Ctx, a.in.Cluster, a.bm.Name, "a "+string(a.in.Action))
	// A replace follows hardware work: its BMC may be new, without the
	// BMC keysets' accounts (docs/keysets-bmc.md#a-bmc-that-lost-its-accounts).
	if a.in.Action == api.ActionReplace && workflow.GetVersion(a.st.Ctx, changeReplaceRechecksAccounts, workflow.DefaultVersion, 1) == 1 {
		kernel.RecheckBMCAccounts(a.st.Ctx, a.in.Cluster, a.bm.Name, "replaced (its BMC may be new)")
	}
	return nil
}

// setStatus records a transition; the Unhealthy mark stays until a replace
// succeeds.
func (a *action) setStatus(detailed, msg string) {
	p := api.BMMPatch{DetailedStatus: api.Str(detailed), DetailedStatusMessage: api.Str(msg)}
	if a.bm.MarkedUnhealthy() {
		p.DetailedStatusMessage = nil
	}
	a.st.Record(p)
}

func (a *action) noteEvacuation(ev kernel.Evacuation) {
	a.res.DrainTimedOut, a.res.VMsTimedOut, a.res.VMsStopped = ev.DrainTimedOut, ev.VMsTimedOut, ev.Stopped
}

// gateBeforeWipe asks the live gate again just before the disk is wiped
// (a no-op for a BMM that is not a control-plane member).
func (a *action) gateBeforeWipe() error {
	if a.recheck == nil || workflow.GetVersion(a.st.Ctx, changeActionRecheckBeforeWipe, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	return a.recheck(a.st.Ctx)
}
