package actions

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// actionKeys: the row of the site's time limits each action runs within.
var actionKeys = map[string]string{
	api.ActionRestart: "restart", api.ActionPowerOff: "powerOff", api.ActionStart: "start", api.ActionReimage: "reimage",
	api.ActionReplace: "replace", api.ActionCordon: "cordon", api.ActionUncordon: "uncordon",
}

// ActionTimeLimit is how long an action may run (the site's limits t)
// before it fails with "timed out after X". A cordon with evacuate gets
// its evacuation budget on top of the cordon's own limit; an operator (or
// a lab) may only shorten a limit, with --time-limit.
func ActionTimeLimit(in api.ActionInput, t model.Timeouts) time.Duration { return actionLimit(in, t).D }

func actionLimit(in api.ActionInput, t model.Timeouts) kernel.Limit {
	key := actionKeys[in.Action]
	if key == "uncordon" {
		key = "cordon" // one limit for both, as the operator API has it
	}
	l := kernel.TimeoutLimit(t, key)
	if in.Action == api.ActionCordon && in.Evacuate {
		drain, vms := evacuateLimits(in, t)
		l = kernel.Limit{D: l.D + drain.D + vms.D, Key: l.Key + " + the evacuation's"}
	}
	if in.TimeLimit > 0 && in.TimeLimit < l.D {
		return kernel.Limit{D: in.TimeLimit, Key: "--time-limit"}
	}
	return l
}

// evacuateLimits bound a cordon's evacuation: the input's evacuateTimeout
// split two thirds for the drain and the rest for the VMs (the 20 + 10 of
// the upgrade), else the site's drain and VM shutdown limits.
func evacuateLimits(in api.ActionInput, t model.Timeouts) (drain, vms kernel.Limit) {
	if in.EvacuateTimeout > 0 {
		d := in.EvacuateTimeout * 2 / 3
		return kernel.Limit{D: d, Key: "evacuateTimeout"}, kernel.Limit{D: in.EvacuateTimeout - d, Key: "evacuateTimeout"}
	}
	return kernel.TimeoutLimit(t, "drain"), kernel.TimeoutLimit(t, "vmShutdown")
}

// BMMActionWorkflow runs one user action on one BMM (docs/behaviour.md#actions) under
// id action:<cluster>:<bmm>:<n>: validate the input, pre-check the BMM, hold
// a lease from the ledger for the whole run (disruptive for restart,
// power-off, reimage and replace, so the KCP rule applies), run the action
// within its time limit, post-check the machine and record what it is now.
// A failed action ends the workflow with an error saying why; the lease is
// released however it ends.
func BMMActionWorkflow(ctx workflow.Context, in api.ActionInput) (api.ActionResult, error) {
	res := api.ActionResult{Cluster: in.Cluster, BMM: in.BMM, Action: in.Action}
	if err := in.Validate(); err != nil {
		return res, temporal.NewNonRetryableApplicationError(err.Error(), api.ErrInvalidInput, nil)
	}
	// Holder is this run's id, so a lease the starter already took for
	// this id is simply confirmed.
	var a *action
	req := lease.Request{BMM: in.BMM, Holder: workflow.GetInfo(ctx).WorkflowExecution.ID, Operation: lease.Operation(in.Action)}
	// Break-glass: the lease may be granted on a Degraded or Failed
	// cluster. open still runs the live control-plane gate.
	if in.Force && workflow.GetVersion(ctx, changeActionForce, workflow.DefaultVersion, 1) == 1 {
		req.Force, req.Reason, req.By = true, in.Reason, in.By
	}
	o := kernel.Opening{
		Req: req,
		Check: func(cs api.ClusterState, bm model.BMM) (err error) {
			a, err = newAction(cs, bm, in)
			return err
		}}
	if in.Action == api.ActionReplace {
		o.Probe = func(ctx workflow.Context, cs api.ClusterState, bm model.BMM) error {
			return a.firmwareProbe(ctx, cs, bm)
		}
	}
	h, stage, err := kernel.LedgerOf(in.Cluster).Open(ctx, o)
	switch stage {
	case kernel.OpenRead:
		// The ledger did not answer: a release would not reach it either;
		// its sweep frees the starter's lease.
		return res, err
	case kernel.OpenPrecheck, kernel.OpenLease:
		// Refused: the lease the starter took for this run goes back before
		// the refusal answers, not at the ledger's next sweep, so the retry
		// the refusal names (--safeguard-mode None, --apply-firmware, a
		// replace of an Unhealthy BMM) is not refused as busy by this run.
		// Before the change only a firmware refusal gave it back.
		if (a != nil && a.fw.refused) || workflow.GetVersion(ctx, changeRefusalReleases, workflow.DefaultVersion, 1) == 1 {
			kernel.LedgerOf(in.Cluster).Release(ctx, in.BMM, req.Holder)
		}
		return res, refusal(in, stage == kernel.OpenLease, err)
	}
	defer h.Release()

	a.limits = kernel.SiteLimits(ctx, h.CS)
	lim := actionLimit(in, a.limits)
	limit := lim.D
	actx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	timedOut := false
	workflow.Go(actx, func(gctx workflow.Context) {
		if workflow.NewTimer(gctx, limit).Get(gctx, nil) == nil {
			timedOut = true
			cancel()
		}
	})
	a.st = kernel.NewSteps(actx, in.Cluster, a.t)
	a.res = res
	a.recheck = h.Recheck // nil unless the BMM is a control-plane member
	a.deadline = workflow.Now(ctx).Add(limit)
	runErr := a.run()
	if runErr == nil {
		return a.res, nil
	}
	// The run's context may be cancelled: record the failure from a
	// disconnected one so the ledger still learns it.
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	a.st = kernel.NewSteps(dctx, in.Cluster, a.t)
	switch {
	case timedOut:
		runErr = temporal.NewNonRetryableApplicationError(fmt.Sprintf("%s of %s timed out after %v (%s)", in.Action, in.BMM, lim, temporalerr.Message(runErr)), api.ErrActionTimeout, nil)
	case kernel.IsStepTimeout(runErr):
		// A step ran out of its share of the action's limit first.
		runErr = temporal.NewNonRetryableApplicationError(fmt.Sprintf("%s of %s timed out: %s", in.Action, in.BMM, temporalerr.Message(runErr)), api.ErrActionTimeout, nil)
	case ctx.Err() != nil:
		a.recordFailure(fmt.Sprintf("%s of %s was cancelled", in.Action, in.BMM))
		return a.res, ctx.Err()
	default:
		runErr = temporal.NewNonRetryableApplicationError(fmt.Sprintf("%s of %s failed: %s", in.Action, in.BMM, temporalerr.Message(runErr)), api.ErrActionFailed, nil)
	}
	a.recordFailure(temporalerr.Message(runErr))
	return a.res, runErr
}

// refusal is the error of an action refused before its lease (a
// pre-check), or by the ledger or the live gate (byLease).
func refusal(in api.ActionInput, byLease bool, err error) error {
	if byLease {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("%s of %s refused: %s", in.Action, in.BMM, temporalerr.Message(err)), ledger.ErrLeaseRejected, nil)
	}
	var fw *firmware.Refusal
	if errors.As(err, &fw) {
		// Its details let the troubleshoot runbook say how to proceed.
		return temporal.NewNonRetryableApplicationError(err.Error(), api.ErrPrecheck, nil, *fw)
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), api.ErrPrecheck, nil)
}

// action is one run: the input, the BMM as the ledger knew it at the start
// and where to reach it.
type action struct {
	in  api.ActionInput
	cs  api.ClusterState
	bm  model.BMM
	t   kernel.Target
	st  *kernel.Steps
	res api.ActionResult
	// replace: the parameters with defaults and the ledger's values filled in.
	rp api.ReplaceParams
	// deadline is when the action's time limit ends.
	deadline time.Time
	// limits are the site's time limits.
	limits model.Timeouts
	// recheck asks the live gate again (held.recheck); nil when the BMM
	// is not a control-plane member.
	recheck func(workflow.Context) error
	// fw is what the replace's firmware check decided.
	fw replaceFirmware
}

// left is what is left of the action's time limit, keeping its key.
func (a *action) left() kernel.Limit {
	l := actionLimit(a.in, a.limits)
	if a.deadline.IsZero() {
		return l
	}
	return kernel.Limit{D: max(a.deadline.Sub(workflow.Now(a.st.Ctx)), time.Second), Key: l.Key}
}

// reimageLimit is what is left of the action's time for a reimage, less a
// grace (a twentieth, at most a minute) so that a node that does not come
// back fails the reimage itself, naming the node and the BMC's last state,
// before the action's own timer cuts it short.
func (a *action) reimageLimit() kernel.Limit {
	l := a.left()
	if a.deadline.IsZero() {
		return l
	}
	whole := actionLimit(a.in, a.limits).D
	return kernel.Limit{D: max(l.D-min(whole/20, time.Minute), time.Second), Key: l.Key}
}

// newAction runs the pre-checks that need the ledger but no side effect.
func newAction(cs api.ClusterState, b model.BMM, in api.ActionInput) (*action, error) {
	a := &action{in: in, cs: cs, bm: b}
	switch in.Action {
	case api.ActionRestart, api.ActionStart, api.ActionReimage:
		// docs/behaviour.md#remediation: an Unhealthy BMM returns to service only through
		// Replace; a restart or reimage would hide the mark, not mend it.
		if a.bm.MarkedUnhealthy() {
			return nil, fmt.Errorf("bmm %s is marked Unhealthy (%q): only replace returns it to service", in.BMM, model.UnhealthyMessage)
		}
		if a.bm.DetailedStatus == model.BMMAvailable {
			return nil, fmt.Errorf("bmm %s is Available (deprovisioned, e.g. an idle KCP spare): it has no node to bring back; %s needs a provisioned BMM", in.BMM, in.Action)
		}
	case api.ActionReplace:
		rp, err := replaceParams(cs, a.bm, in.ReplaceParams)
		if err != nil {
			return nil, err
		}
		a.rp = rp
		if rp.BMCCredentials != "" {
			a.bm.BMC.Credentials = rp.BMCCredentials
		}
		if a.rp.SafeguardMode == api.SafeguardAll && a.bm.ReadyState == model.ReadyTrue && !a.bm.MarkedUnhealthy() && a.bm.CordonStatus != model.Cordoned {
			return nil, safeguardRefusal(in)
		}
	}
	if a.bm.NodeName == "" {
		a.bm.NodeName = a.bm.Name
	}
	a.t = kernel.TargetsFor(cs, a.bm)
	return a, nil
}

// safeguardRefusal says what to run instead of a replace that safeguard
// mode All refuses: the cordon it asks for first, or the same replace
// with safeguardMode None (every other flag kept, --apply-firmware
// included, so the retry is not refused next for its firmware).
func safeguardRefusal(in api.ActionInput) error {
	retry := in
	retry.SafeguardMode = api.SafeguardNone
	cordon := api.ActionInput{Cluster: in.Cluster, BMM: in.BMM, Action: api.ActionCordon, Evacuate: true}
	return fmt.Errorf("bmm %s is healthy and not cordoned, which safeguardMode All (the default) refuses: cordon it with evacuate first (`%s`), then replace; or let the replace evacuate it with safeguardMode None: `%s`",
		in.BMM, cordon.Command(), retry.Command())
}

// replaceParams checks the replace parameters against the ledger and fills
// the empty ones from it.
func replaceParams(cs api.ClusterState, b model.BMM, p api.ReplaceParams) (api.ReplaceParams, error) {
	p = p.WithDefaults()
	if p.BMCCredentials != "" {
		if _, ok := cs.BMCCredentials[p.BMCCredentials]; !ok {
			names := make([]string, 0, len(cs.BMCCredentials))
			for n := range cs.BMCCredentials {
				names = append(names, n)
			}
			sort.Strings(names)
			return p, fmt.Errorf("bmcCredentials %q is not in the inventory's bmcCredentials: allowed %s (add it to the inventory and register it first)", p.BMCCredentials, strings.Join(names, ", "))
		}
	}
	if p.MachineName != "" && p.MachineName != b.NodeName {
		return p, fmt.Errorf("machineName %q: must be the BMM's node name %q (renaming a machine is not supported)", p.MachineName, b.NodeName)
	}
	return p, nil
}

func (a *action) run() error {
	run, ok := map[string]func() error{
		api.ActionRestart:  a.restart,
		api.ActionPowerOff: a.powerOff,
		api.ActionStart:    a.start,
		api.ActionReimage:  a.reimage,
		api.ActionReplace:  a.replace,
		api.ActionCordon:   a.cordon,
		api.ActionUncordon: a.uncordon,
	}[a.in.Action]
	if !ok {
		return fmt.Errorf("action %q has no implementation", a.in.Action)
	}
	return run()
}

// recordFailure writes the failure on the BMM. Cordon and uncordon do not
// touch the machine, so they leave its status alone; the Unhealthy mark is
// never overwritten (only a successful replace clears it).
func (a *action) recordFailure(msg string) {
	a.res.Message = msg
	if a.in.Action == api.ActionCordon || a.in.Action == api.ActionUncordon {
		return
	}
	p := api.BMMPatch{DetailedStatus: api.Str(model.BMMError), DetailedStatusMessage: api.Str(msg)}
	if a.bm.MarkedUnhealthy() {
		p.DetailedStatusMessage = nil
	}
	a.st.Record(p)
}
