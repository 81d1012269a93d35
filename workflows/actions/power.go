package actions

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/temporal"
)

// Power actions (docs/behaviour.md#actions):
// restart power-cycles the machine and waits until its node is Ready again;
// start powers on a machine that is off and waits the same; power-off shuts
// down gracefully (ForceOff after the BMC activity's grace) or, with
// skipShutdown, forces off at once.

func (a *action) restart() error {
	previous, err := a.st.BootBefore()
	if err != nil {
		return stepErr("read the node", err)
	}
	res, err := a.st.Restart(a.left())
	if err != nil {
		return stepErr("power cycle", err)
	}
	a.st.Record(api.BMMPatch{PowerState: api.Str(model.PowerOn)})
	return a.backInService("restarted", kernel.After(previous, res))
}

func (a *action) start() error {
	previous, err := a.st.BootBefore()
	if err != nil {
		return stepErr("read the node", err)
	}
	res, err := a.st.PowerOn(a.left())
	if err != nil {
		return stepErr("power on", err)
	}
	return a.backInService("started", kernel.After(previous, res))
}

// backInService waits for the node on a new boot (rb) and post-checks
// power and readiness, then records the BMM as provisioned and Ready.
func (a *action) backInService(verb string, rb kernel.Reboot) error {
	if _, err := a.st.WaitBack(rb, "", a.left()); err != nil {
		return stepErr("wait for node Ready", err)
	}
	if err := a.st.CheckPower(model.PowerOn); err != nil {
		return stepErr("post-check", err)
	}
	if err := a.st.CheckReady(); err != nil {
		return stepErr("post-check", err)
	}
	a.succeeded(fmt.Sprintf("%s %s: node %s Ready", verb, a.bm.Name, a.t.Node), nil)
	return nil
}

func (a *action) powerOff() error {
	if err := a.st.PowerOff(a.in.SkipShutdown, a.left()); err != nil {
		return stepErr("power off", err)
	}
	if err := a.st.CheckPower(model.PowerOff); err != nil {
		return stepErr("post-check", err)
	}
	// A machine that is off has no Ready node: saying so at once keeps the
	// KCP rule from counting a powered-off KCP as present.
	a.st.Record(api.BMMPatch{PowerState: api.Str(model.PowerOff), ReadyState: api.Str(model.ReadyFalse)})
	how := "gracefully"
	if a.in.SkipShutdown {
		how = "at once (skipShutdown)"
	}
	a.res.Message = fmt.Sprintf("powered off %s %s", a.bm.Name, how)
	a.res.PowerState, a.res.ReadyState = model.PowerOff, model.ReadyFalse
	return nil
}

// succeeded records a BMM back in service (provisioned, on, Ready,
// uncordoned unless kept cordoned) and fills the result. The Unhealthy
// mark stays unless clear (replace) says otherwise.
func (a *action) succeeded(msg string, extra *api.BMMPatch) {
	p := api.BMMPatch{DetailedStatus: api.Str(model.BMMProvisioned), PowerState: api.Str(model.PowerOn), ReadyState: api.Str(model.ReadyTrue)}
	if extra != nil {
		p = p.Merge(*extra)
	}
	if p.DetailedStatusMessage == nil && !a.bm.MarkedUnhealthy() {
		p.DetailedStatusMessage = api.Str("")
	}
	a.st.Record(p)
	a.res.Message = msg
	a.res.DetailedStatus, a.res.PowerState, a.res.ReadyState = model.BMMProvisioned, model.PowerOn, model.ReadyTrue
	if p.CordonStatus != nil {
		a.res.CordonStatus = *p.CordonStatus
	}
	if p.RuntimeVersion != nil {
		a.res.RuntimeVersion = *p.RuntimeVersion
	}
}

// stepErr names the step that failed, keeping the activity's own message.
func stepErr(step string, err error) error {
	if kernel.IsStepTimeout(err) { // kept typed: the action reports a timeout
		return temporal.NewNonRetryableApplicationError(step+": "+temporalerr.Message(err), kernel.ErrStepTimedOut, nil)
	}
	return fmt.Errorf("%s: %s", step, temporalerr.Message(err))
}
