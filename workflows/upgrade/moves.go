package upgrade

import (
	"errors"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/rackroll/rackroll/workflows/kernel"
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
	if workflow.GetVersion(ctx, changeUpgradeMovesBuild, workflow.DefaultVersion, movesBetweenRacks) == workflow.DefaultVersion {
		u.declined = true
		return nil
	}
	return u.move(ctx, func(c *api.UpgradeCarry) { c.PausedAt, c.PauseMessage = unit.Name, msg })
}

// movesBetweenRacks is upgrade-moves-build's version since which a run
// also moves before a compute rack starts and during the wait between
// racks (moveBefore, waitBetween); version 1 moved at a pause only.
const movesBetweenRacks = 2

// moveBefore moves the run, between two management groups or before a
// compute rack (no child running), to the new current build: the next
// run starts that unit.
func (u *upgrade) moveBefore(ctx workflow.Context) error {
	if !u.newBuild(ctx) {
		return nil
	}
	if workflow.GetVersion(ctx, changeUpgradeMovesBuild, workflow.DefaultVersion, movesBetweenRacks) < movesBetweenRacks {
		u.declined = true
		return nil
	}
	return u.move(ctx, nil)
}

// waitBetween waits w between racks, before rack next (the pause after
// the rack before comes after it, as the caller has it). A new current
// build met during the wait moves the run at once: the next run waits what
// is left, then takes that pause (resumeWait). In a recorded history from
// before movesBetweenRacks it waits as it did.
func (u *upgrade) waitBetween(ctx workflow.Context, w time.Duration, next string) error {
	wakes := workflow.GetVersion(ctx, changeUpgradeMovesBuild, workflow.DefaultVersion, movesBetweenRacks) >= movesBetweenRacks
	until := workflow.Now(ctx).Add(w)
	moving := func() bool { return wakes && u.newBuild(ctx) && !u.cancelled }
	if _, err := workflow.AwaitWithTimeout(ctx, w, func() bool { return u.cancelled || moving() }); err != nil || !moving() {
		return err
	}
	return u.move(ctx, func(c *api.UpgradeCarry) {
		c.WaitBefore, c.WaitUntil = next, &until
		c.MinReader = max(c.MinReader, 2) // a format-1 build would skip the rest of the wait and the pause after it
	})
}

// resumeWait: a run moved during the wait before rack ri waits what is
// left of it, then takes the pause after the rack before if the strategy
// has one. It returns true when the operator cancelled.
func (u *upgrade) resumeWait(ctx workflow.Context, ri int) (bool, error) {
	c := u.carried()
	if c == nil || c.WaitUntil == nil || ri == 0 || c.WaitBefore != u.plan.Racks[ri].Name {
		return false, nil
	}
	if d := c.WaitUntil.Sub(workflow.Now(ctx)); d > 0 {
		if _, err := workflow.AwaitWithTimeout(ctx, d, func() bool { return u.cancelled }); err != nil {
			return false, err
		}
	}
	prev := &u.st.Racks[ri-1]
	if msg := prev.PauseAfter(u.plan.Strategy, u.plan.Racks[ri].Name); msg != "" && !u.cancelled {
		return u.atBoundary(ctx, prev, msg)
	}
	return u.cancelled, nil
}

// move continues the run as new on the current build with its status,
// and where it stopped as set sets it. Nothing is in flight at a move
// point; an Update being answered would be lost with the run, so it waits
// for the handlers; the operator's word that came first keeps it here.
func (u *upgrade) move(ctx workflow.Context, set func(*api.UpgradeCarry)) error {
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	if u.continued || u.cancelled {
		return nil
	}
	next := u.in
	moves := 0
	if u.in.Carry != nil {
		moves = u.in.Carry.Moves
	}
	next.Carry = &api.UpgradeCarry{CarryHeader: kernel.CarryHeader(ctx), Status: u.st, Moves: moves + 1}
	u.operatorCarry(next.Carry)
	if set != nil {
		set(next.Carry)
	}
	// The next run's first task goes to the current build, where it is
	// pinned from then on; without this it would stay here.
	return workflow.NewContinueAsNewErrorWithOptions(ctx, workflow.ContinueAsNewErrorOptions{
		InitialVersioningBehavior: workflow.ContinueAsNewVersioningBehaviorAutoUpgrade}, RuntimeUpgradeWorkflow, next)
}

// withNextMove is the status as the query shows it: while another build
// is current and the run has not moved yet, where it will.
func (u *upgrade) withNextMove(ctx workflow.Context) api.UpgradeStatus {
	st := u.st
	if !u.newBuild(ctx) {
		return st
	}
	where := "before the next compute rack starts (the control plane and the management groups finish on this build)"
	switch {
	case u.paused && u.movesHere:
		where = "now, at this pause"
	case u.paused:
		where = "once this pause is continued, before the next compute rack starts (never mid-rack)"
	case u.current != nil && st.Phase == api.PhaseCompute:
		where = "once " + u.current.Name + " is done, before the next rack starts (never mid-rack)"
	case st.Phase == api.PhaseCompute:
		where = "now, between racks"
	}
	st.NextMove = "a new rackroll build is current; this run moves to it " + where
	return st
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
