package upgrade

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/cpgate"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// gatesKCP reports whether step disrupts an active KCP, which the live gate
// must allow first: a swap or in-place reimage takes it down, a retire
// takes it out of the control plane. The spare's own upgrade does not.
func gatesKCP(step upgradeplan.KCPStep) bool {
	return step.Action != upgradeplan.KCPUpgradeSpare
}

// gateKCPStep holds a KCP step until the live gate allows it. A refusal
// pauses the upgrade (UpdatePaused) with the status naming the server, its
// observed condition and when it was seen; the operator continues once the
// member is healthy again (the gate is asked again then, and pauses again
// if it still refuses) or cancels (returns true). Pausing rather than
// failing: the upgrade has touched nothing of the control plane for this
// step, and the upgrade rules (docs/behaviour-upgrade.md#upgrade) pause (not fails) on what the operator must look
// at; failing would be for a KCP that the upgrade itself broke.
func (u *upgrade) gateKCPStep(ctx workflow.Context, unit *api.UnitStatus, step upgradeplan.KCPStep) (bool, error) {
	if !gatesKCP(step) || workflow.GetVersion(ctx, changeUpgradeKcpLiveGate, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return false, nil
	}
	// A swap or in-place step runs in a server workflow whose lease
	// prologue asks the same gate (before and after the lease) and again
	// before the reimage; a refusal there pauses the upgrade as one here
	// would (kcpChild). Asking here too only cost each step a ledger read
	// and an observation. The retire runs here and keeps its gate.
	if step.Action != upgradeplan.KCPRetire &&
		workflow.GetVersion(ctx, changeUpgradeKcpGateInChild, workflow.DefaultVersion, 1) != workflow.DefaultVersion {
		return false, nil
	}
	for {
		d := u.askGate(ctx, step)
		if d.Allowed() {
			return false, nil
		}
		if cancelled, err := u.pauseKCP(ctx, unit, step.BMM, d.Reason); err != nil || cancelled {
			return cancelled, err
		}
	}
}

// askGate reads the ledger (roles change during the upgrade: the spare
// joins) and asks the gate about the step's server; a retire removes it
// from the member set.
func (u *upgrade) askGate(ctx workflow.Context, step upgradeplan.KCPStep) cpgate.Decision {
	cs, err := kernel.LedgerOf(u.in.Cluster).Read(ctx)
	if err != nil {
		return cpgate.Decision{Outcome: cpgate.Refuse, Reason: "read the ledger: " + temporalerr.Message(err)}
	}
	d, _ := kernel.LiveGate(ctx, cs, kernel.GateAsk{Target: step.BMM, Op: lease.OpUpgrade, Removes: step.Action == upgradeplan.KCPRetire})
	if d.Outcome == cpgate.MoveLeader {
		// The step's own prologue moves leadership; the gate allows the step.
		d.Outcome = cpgate.Allow
	}
	return d
}

// pauseKCP pauses before the KCP step on bmm.
func (u *upgrade) pauseKCP(ctx workflow.Context, unit *api.UnitStatus, bmm, reason string) (bool, error) {
	msg := fmt.Sprintf("KCP step %s paused by the live control-plane check: %s; continue-update once it is healthy", bmm, reason)
	unit.State = api.StatePaused
	cancelled, err := u.pause(ctx, unit, msg)
	if err == nil && !cancelled {
		unit.State = api.StateRunning
		u.show(ctx)
	}
	return cancelled, err
}

// kcpChild runs the KCP step's server workflow. When its own gate refused
// (the site changed between the upgrade's check and the child's lease),
// the upgrade pauses as for its own refusal and runs the step again once
// continued; cancelled while paused, it returns the gated result.
func (u *upgrade) kcpChild(ctx workflow.Context, unit *api.UnitStatus, step upgradeplan.KCPStep, in api.ServerInput) (api.ServerResult, error) {
	for {
		var res api.ServerResult
		err := workflow.ExecuteChildWorkflow(childOpts(ctx, u.in.Cluster, api.ServerUpgradeID(u.in.Cluster, step.BMM),
			fmt.Sprintf("Upgrade KCP %s to %s (%s)", step.BMM, u.in.TargetVersion, step.Action), serverDetails(in), serverRun(in)),
			api.ServerUpgradeWorkflowName, in).Get(ctx, &res)
		if err != nil || !res.Gated {
			return res, err
		}
		reason := res.GateReason
		if reason == "" { // a child of an older version
			reason = res.Error
		}
		if cancelled, err := u.pauseKCP(ctx, unit, step.BMM, reason); err != nil || cancelled {
			return res, err
		}
	}
}
