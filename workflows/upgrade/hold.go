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
// cancel-update, as a strategy's pause does. Any pause taken first (a
// threshold's, the strategy's) answers it. Only a run that receives the
// Update takes this path: recorded histories replay as they ran.

// onPause registers pause-update.
func (u *upgrade) onPause(ctx workflow.Context) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, api.UpdatePause, func(ctx workflow.Context, req api.PauseRequest) (string, error) {
		u.asked = cmp.Or(req.Reason, "no reason given")
		return fmt.Sprintf("pausing before %s starts (%s in flight finishes first)", u.nextUnit(), cmp.Or(u.inFlight(), "nothing")), nil
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req api.PauseRequest) error {
		switch {
		case u.st.Phase == api.PhaseDone || u.cancelled:
			return fmt.Errorf("upgrade of %s is %s: nothing to pause", u.in.Cluster, cmp.Or(map[bool]string{true: "cancelling"}[u.cancelled], "done"))
		case u.paused || u.restoring:
			return fmt.Errorf("upgrade of %s is already paused (%s): continue-update or cancel-update", u.in.Cluster, u.st.DetailedStatusMessage)
		case u.asked != "":
			return fmt.Errorf("upgrade of %s already pauses before %s (asked: %s)", u.in.Cluster, u.nextUnit(), u.asked)
		case u.nextUnit() == "":
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
	msg := fmt.Sprintf("paused on the operator's word before %s starts (%s): continue-update to start it, cancel-update to stop", next, u.asked)
	u.holding = true
	defer func() { u.holding = false }()
	return u.pause(ctx, prev, msg)
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

// withdraw answers a continue that came before the pause it was asked
// for: the pause is asked no more.
func (u *upgrade) withdraw() string {
	msg := fmt.Sprintf("going on: the pause asked before %s (%s) is withdrawn", u.nextUnit(), u.asked)
	u.asked = ""
	return msg
}

// heldAfter is the pause a moved run restores after rack unit: the
// strategy's, else the operator's it carried.
func (u *upgrade) heldAfter(unit *api.UnitStatus, next string, at string) string {
	msg := unit.PauseAfter(u.plan.Strategy, next)
	if c := u.carried(); msg == "" && at == "after" && c != nil {
		msg = c.PauseMessage
	}
	return msg
}

// operatorCarry marks the carry of a run moved while paused on the
// operator's word: a build that does not know the word would go on.
func (u *upgrade) operatorCarry(c *api.UpgradeCarry, unit *api.UnitStatus) {
	if u.holding && unit.PauseAfter(u.plan.Strategy, "next") == "" {
		c.MinReader = max(c.MinReader, selfupgrade.FormatOperatorPause)
	}
}

// nextUnit is the next management group or rack to start, "" when none is
// left to start.
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

// inFlight is the unit running now, "" between units.
func (u *upgrade) inFlight() string {
	for _, un := range u.st.Units() {
		if un.State == api.StateRunning {
			return un.Label()
		}
	}
	return ""
}
