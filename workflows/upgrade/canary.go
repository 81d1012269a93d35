package upgrade

import (
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"go.temporal.io/sdk/workflow"
)

// canary is the plan's canary when this run uses it (version 1 of
// systemic-canary; older histories ran every rack whole).
func (u *upgrade) canary(ctx workflow.Context) *upgradeplan.Canary {
	if u.plan.Canary == nil || workflow.GetVersion(ctx, changeSystemicCanary, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	return u.plan.Canary
}

// runRack runs a compute rack. The canary's rack runs its canary first
// (docs/behaviour-upgrade.md#guards): when every canary server failed at the same
// step, the upgrade pauses before any other compute server starts, until
// the operator continues (true when they cancelled instead).
func (u *upgrade) runRack(ctx workflow.Context, r upgradeplan.Rack, unit *api.UnitStatus, canary *upgradeplan.Canary) (bool, error) {
	if canary == nil || canary.Rack != r.Name {
		return u.drainAndRun(ctx, u.unitID(ctx, r.Name), r, unit)
	}
	first, rest := canary.Split(r)
	if cancelled, err := u.drainAndRun(ctx, u.unitID(ctx, r.Name+"-canary"), first, unit); err != nil || cancelled {
		return cancelled, err
	}
	verdict, systemic := canary.Verdict(*unit)
	u.st.Canary = verdict
	u.show(ctx)
	if systemic && !u.cancelled {
		unit.State = api.StatePaused
		// Half a rack done: the rest of it runs on this build after the
		// operator's word, not on a moved run.
		u.midRack = true
		cancelled, err := u.pause(ctx, unit, verdict)
		u.midRack = false
		if err != nil || cancelled {
			return cancelled, err
		}
		unit.State = api.StateRunning
		u.st.CanaryContinuedAt = unit.ContinuedAt
	}
	if u.cancelled {
		return true, nil
	}
	if len(rest.Servers) == 0 {
		return false, nil
	}
	return u.drainAndRun(ctx, u.unitID(ctx, r.Name), rest, unit)
}
