package upgrade

import (
	"errors"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"go.temporal.io/sdk/workflow"
)

// A runtime upgrade runs for days while rackroll is released; each run
// stays on the build it started on (Pinned, docs/self-upgrade.md). At a
// pause of the compute phase — a rack settled, no child running, the
// operator's word awaited — a run whose deployment has another current
// build moves to it: it continues as new there with its status and where
// it paused, and the next run waits at the same pause. Nothing else
// changes: a pause stays a pause until continue-update. Everywhere else
// the run stays on its build until it ends (its children run there too).

// newBuild: the server says another build is current for this run, and
// the run has not declined to move.
func (u *upgrade) newBuild(ctx workflow.Context) bool {
	return !u.declined && workflow.GetInfo(ctx).GetTargetWorkerDeploymentVersionChanged()
}

// movable: a pause at unit is a safe point to move at (a compute rack).
func (u *upgrade) movable(unit *api.UnitStatus) bool {
	for i := range u.st.Racks {
		if &u.st.Racks[i] == unit {
			return true
		}
	}
	return false
}

// moveAt moves the run paused at unit to the new current build: it
// returns the continue-as-new that carries the status and the pause, or
// nil when this run's history says not to (it is then not asked again).
// Asked only once the server said so: recorded histories never ask.
func (u *upgrade) moveAt(ctx workflow.Context, unit *api.UnitStatus, msg string) error {
	if workflow.GetVersion(ctx, changeUpgradeMovesBuild, workflow.DefaultVersion, 1) != 1 {
		u.declined = true
		return nil
	}
	// An Update being answered would be lost with the run.
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	if u.continued || u.cancelled {
		return nil // the operator's word came first: the pause ends here
	}
	next := u.in
	moves := 0
	if u.in.Carry != nil {
		moves = u.in.Carry.Moves
	}
	next.Carry = &api.UpgradeCarry{Status: u.st, PausedAt: unit.Name, PauseMessage: msg, Moves: moves + 1}
	// The next run's first task goes to the current build, where it is
	// pinned from then on; without this it would stay here.
	return workflow.NewContinueAsNewErrorWithOptions(ctx, workflow.ContinueAsNewErrorOptions{
		InitialVersioningBehavior: workflow.ContinueAsNewVersioningBehaviorAutoUpgrade}, RuntimeUpgradeWorkflow, next)
}

// isMove: err is the run's move, to be returned as it is (not a failure).
func isMove(err error) bool {
	var can *workflow.ContinueAsNewError
	return errors.As(err, &can)
}

// carried is where a moved run starts again: its status and the pause it
// waits at (nil for a run not moved). The units before the pause finished
// on the builds before; the carried plan is the one they ran.
func (u *upgrade) carried() *api.UpgradeCarry {
	c := u.in.Carry
	if c == nil || c.Status.Plan == nil {
		return nil
	}
	return c
}

// resumeAt says how a moved run goes on at compute rack unit: "" when the
// rack is still to run (or the run was not moved), "done" when it finished
// before the move, "settle" when its missed threshold's pause was the one
// moved from, "after" when the pause after it was.
func resumeAt(c *api.UpgradeCarry, unit *api.UnitStatus) string {
	if c == nil {
		return ""
	}
	switch {
	case unit.Name == c.PausedAt && unit.State == api.StatePaused:
		return "settle"
	case unit.Name == c.PausedAt:
		return "after"
	case finished(unit.State):
		return "done"
	}
	return ""
}

// finished: a unit in state s ran to its end.
func finished(s string) bool {
	switch s {
	case upgradeplan.StateSucceeded, upgradeplan.StateFailed, upgradeplan.StateSkipped:
		return true
	}
	return false
}
