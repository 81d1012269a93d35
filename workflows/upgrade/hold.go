package upgrade

import (
	"cmp"
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"go.temporal.io/sdk/workflow"
)

// The operator's pause (pause-update): the upgrade finishes the unit in
// flight — never a server or a rack cut short — and pauses before the
// next management group or compute rack starts, until continue-update or
// cancel-update, as a strategy's pause does. A pause between units taken
// first (a rack's threshold, the strategy's) answers it; a pause inside a
// unit (the canary's, the capacity guard's, a stage's) does not. The ask
// travels with a move (carry format 4). Withdraw takes back only the
// pause asked with its reason: a fleet continues what it paused, never a
// site's own pause. Only a run that receives the Update takes this path:
// recorded histories replay as they ran.

// onPause registers pause-update.
func (u *upgrade) onPause(ctx workflow.Context) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, api.UpdatePause, func(ctx workflow.Context, req api.PauseRequest) (string, error) {
		why := cmp.Or(req.Reason, "no reason given")
		switch {
		case req.Withdraw && u.asked == why:
			return u.withdraw(), nil
		case req.Withdraw:
			u.continued = true // the hold asked with why, taken or being restored
			return "continuing: " + u.st.DetailedStatusMessage, nil
		}
		u.asked = why
		return fmt.Sprintf("pausing before %s starts (%s in flight finishes first)", u.nextOrAny(), cmp.Or(u.inFlight(), "nothing")), nil
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req api.PauseRequest) error {
		why := cmp.Or(req.Reason, "no reason given")
		if req.Withdraw {
			if u.asked == why || (u.holding || u.restoring) && u.heldFor == why {
				return nil
			}
			return fmt.Errorf("upgrade of %s has no pause asked as %q to withdraw (%s, %s)", u.in.Cluster, why, u.st.DetailedStatus, u.st.DetailedStatusMessage)
		}
		switch {
		case u.cancelled:
			return fmt.Errorf("upgrade of %s is cancelling: nothing to pause", u.in.Cluster)
		case u.st.Phase == api.PhaseDone:
			return fmt.Errorf("upgrade of %s is done: nothing to pause", u.in.Cluster)
		case u.paused || u.restoring:
			return fmt.Errorf("upgrade of %s is already paused (%s): continue-update or cancel-update", u.in.Cluster, u.st.DetailedStatusMessage)
		case u.asked != "":
			return fmt.Errorf("upgrade of %s already pauses before %s (asked: %s)", u.in.Cluster, u.nextOrAny(), u.asked)
		case u.st.Phase == api.PhaseCompute && u.nextUnit() == "":
			return fmt.Errorf("upgrade of %s is on its last rack (%s): nothing starts after it to pause before", u.in.Cluster, u.inFlight())
		}
		return nil
	}})
}

// holdBefore takes the operator's pause, if asked, before next starts;
// the pause is shown at prev, the unit that ended last. It returns true
// when the operator cancelled.
func (u *upgrade) holdBefore(ctx workflow.Context, prev *api.UnitStatus, next string) (bool, error) {
	if u.asked == "" || u.cancelled {
		return false, nil // the caller's own checks see a cancel, as before
	}
	why := u.asked
	u.asked = ""
	return u.hold(ctx, prev, why, fmt.Sprintf("paused on the operator's word before %s starts (%s): continue-update to start it, cancel-update to stop", next, why))
}

// hold is the operator's pause at unit, asked as why.
func (u *upgrade) hold(ctx workflow.Context, unit *api.UnitStatus, why, msg string) (bool, error) {
	u.holding, u.heldFor = true, why
	defer func() { u.holding, u.heldFor = false, "" }()
	return u.pause(ctx, unit, msg)
}

// atBoundary is a pause between units (a rack's threshold, the
// strategy's): it answers the operator's ask too.
func (u *upgrade) atBoundary(ctx workflow.Context, unit *api.UnitStatus, msg string) (bool, error) {
	u.asked = ""
	return u.pause(ctx, unit, msg)
}

// afterRack is the pause after rack unit, before rack next: the
// strategy's, or the operator's a moved run carried (at "after").
func (u *upgrade) afterRack(ctx workflow.Context, unit *api.UnitStatus, next, at string) (bool, error) {
	if u.cancelled {
		return false, nil
	}
	if c := u.carried(); at == "after" && c != nil && c.HeldFor != "" {
		// The operator's, at the rack's end: the strategy's pause there,
		// if any, came and was continued before it.
		return u.hold(ctx, unit, c.HeldFor, c.PauseMessage)
	}
	if msg := unit.PauseAfter(u.plan.Strategy, next); msg != "" {
		return u.atBoundary(ctx, unit, msg)
	}
	return false, nil
}

// unitBefore is the unit that ended before rack ri: the rack before, the
// last management group, or the control plane.
func (u *upgrade) unitBefore(ri int) *api.UnitStatus {
	switch {
	case ri > 0:
		return &u.st.Racks[ri-1]
	case len(u.st.ManagementGroups) > 0:
		return &u.st.ManagementGroups[len(u.st.ManagementGroups)-1]
	}
	return &u.st.ControlPlane
}

// withdraw answers a continue (or the asker's withdraw) that came before
// the pause it was asked for: the pause is asked no more.
func (u *upgrade) withdraw() string {
	msg := fmt.Sprintf("going on: the pause asked before %s (%s) is withdrawn", u.nextOrAny(), u.asked)
	u.asked = ""
	return msg
}

// operatorCarry keeps the operator's word in a move's carry — the pause
// the run is held at, or the one asked and not taken yet — which a build
// that does not know the word would lose.
func (u *upgrade) operatorCarry(c *api.UpgradeCarry) {
	if u.holding {
		c.HeldFor = u.heldFor
	}
	c.Asked = u.asked
	if c.HeldFor != "" || c.Asked != "" {
		c.MinReader = max(c.MinReader, selfupgrade.FormatOperatorPause)
	}
}

// nextUnit is the next management group or rack to start, "" when none is
// left to start (or the units are not known yet).
func (u *upgrade) nextUnit() string {
	for _, un := range u.st.Units() {
		if un.Kind == api.UnitControlPlane {
			continue
		}
		if s := un.State; s == "" || s == upgradeplan.StatePending {
			return un.Label()
		}
	}
	return ""
}

func (u *upgrade) nextOrAny() string {
	return cmp.Or(u.nextUnit(), "the next management group or rack")
}

// inFlight is the unit running now, "" between units.
func (u *upgrade) inFlight() string {
	for _, un := range u.st.Units() {
		if un.State == api.StateRunning {
			return un.Label()
		}
	}
	return ""
}
