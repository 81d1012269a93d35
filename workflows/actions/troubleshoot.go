package actions

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// TroubleshootWorkflow walks the escalation runbook (docs/behaviour.md#troubleshooting) for one BMM
// (id troubleshoot:<cluster>:<bmm>): each rung runs as a child
// BMMActionWorkflow, is verified (node Ready, BMM provisioned, not marked
// Unhealthy), and the runbook stops at the first rung that resolves the
// problem. Replace needs hands on the hardware, so before it the runbook
// waits for signal confirm-replace, which carries the new hardware facts.
//
// Child ids come from the ledger (acquire-lease with an empty holder), so a
// runbook's actions are numbered with the user's (action:<c>:<bmm>:<n>)
// and each is leased before it starts; a refused lease (another KCP
// disruption, cluster not Running) ends the runbook with the reason rather
// than escalating past it. A BMM already marked Unhealthy goes straight to
// replace: restart and reimage cannot return it to service. The replace
// takes the runbook's applyFirmware (docs/firmware-replace-upgrade.md#replace).
func TroubleshootWorkflow(ctx workflow.Context, in api.TroubleshootInput) (api.TroubleshootStatus, error) {
	t := &troubleshooter{in: in, st: api.TroubleshootStatus{Cluster: in.Cluster, BMM: in.BMM, Problem: in.Problem, Phase: api.TroubleshootRunning}}
	if err := workflow.SetQueryHandler(ctx, api.QueryStatus, func() (api.TroubleshootStatus, error) { return t.st, nil }); err != nil {
		return t.st, err
	}
	if err := in.Validate(); err != nil {
		return t.st, temporal.NewNonRetryableApplicationError(err.Error(), api.ErrInvalidInput, nil)
	}
	cs, err := kernel.LedgerOf(t.in.Cluster).Read(ctx)
	if err != nil {
		return t.st, err
	}
	b, err := kernel.FindBMM(cs, in.BMM)
	if err != nil {
		return t.st, temporal.NewNonRetryableApplicationError(err.Error(), api.ErrPrecheck, nil)
	}
	for _, a := range TroubleshootLadder(in.Problem) {
		step := api.TroubleshootStep{Action: a, State: api.StatePending}
		if b.MarkedUnhealthy() && a != api.ActionReplace {
			step.State, step.Error = api.StateSkipped, "the BMM is marked Unhealthy: only replace returns it to service"
		}
		t.st.Steps = append(t.st.Steps, step)
	}
	for i := range t.st.Steps {
		if t.st.Steps[i].State == api.StateSkipped {
			continue
		}
		resolved, err := t.rung(ctx, i)
		if err != nil {
			t.st.Phase, t.st.Message = api.TroubleshootUnresolved, err.Error()
			return t.st, err
		}
		if resolved {
			for j := i + 1; j < len(t.st.Steps); j++ {
				t.st.Steps[j].State = api.StateSkipped
			}
			t.st.Phase = api.TroubleshootResolved
			t.st.Message = fmt.Sprintf("%s resolved %s on %s", t.st.Steps[i].Action, in.Problem, in.BMM)
			return t.st, nil
		}
	}
	var tried []string
	for _, s := range t.st.Steps {
		if s.State == api.StateFailed {
			tried = append(tried, s.Action+" ("+s.Error+")")
		}
	}
	t.st.Phase = api.TroubleshootUnresolved
	t.st.Message = fmt.Sprintf("%s on %s persists after %s: contact support", in.Problem, in.BMM, strings.Join(tried, "; "))
	return t.st, temporal.NewNonRetryableApplicationError(t.st.Message, api.ErrActionFailed, nil)
}

type troubleshooter struct {
	in api.TroubleshootInput
	st api.TroubleshootStatus
}

// rung runs step i: confirmation (replace), lease, child action,
// verification. It returns an error only when the runbook must stop.
func (t *troubleshooter) rung(ctx workflow.Context, i int) (bool, error) {
	s := &t.st.Steps[i]
	in := api.ActionInput{Cluster: t.in.Cluster, BMM: t.in.BMM, Action: s.Action, Force: t.in.Force, Reason: t.in.Reason, By: t.in.By}
	if s.Action == api.ActionReimage || s.Action == api.ActionReplace {
		in.EvacuateTimeout = t.in.EvacuateTimeout
	}
	if s.Action == api.ActionReplace {
		rp, err := t.awaitConfirmation(ctx)
		if err != nil {
			return false, err
		}
		in.ReplaceParams = rp
		in.ApplyFirmware = t.in.ApplyFirmware
	}
	s.State = api.StateRunning
	got, err := kernel.LedgerOf(t.in.Cluster).Acquire(ctx, lease.Request{
		BMM: t.in.BMM, Operation: lease.Operation(s.Action), Force: t.in.Force, Reason: t.in.Reason, By: t.in.By})
	if err != nil {
		s.State, s.Error = api.StateFailed, temporalerr.Message(err)
		return false, fmt.Errorf("%s of %s refused: %s", s.Action, t.in.BMM, temporalerr.Message(err))
	}
	s.WorkflowID = got.Holder
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:    got.Holder,
		StaticSummary: api.ActionSummary(s.Action, t.in.BMM, t.in.Cluster) + " (troubleshoot " + t.in.Problem + ")",
		StaticDetails: "a step of the " + t.in.Problem + " runbook",
		TypedSearchAttributes: temporal.NewSearchAttributes(
			temporal.NewSearchAttributeKeyKeyword(api.SearchAttrCluster).ValueSet(t.in.Cluster),
			temporal.NewSearchAttributeKeyKeyword(api.SearchAttrOperation).ValueSet(s.Action)),
	})
	var res api.ActionResult
	if err := workflow.ExecuteChildWorkflow(cctx, api.BMMActionWorkflowName, in).Get(ctx, &res); err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		// A child that never ran cannot release the lease it was given.
		kernel.LedgerOf(t.in.Cluster).Release(ctx, t.in.BMM, got.Holder)
		s.State, s.Error = api.StateFailed, temporalerr.Message(err)
		if fw, ok := firmwareRefusal(err); ok {
			// Refused before any side effect, like a refused lease: the
			// runbook stops saying how to proceed, as commands to run.
			s.Error = t.firmwareNext(fw, in)
			return false, fmt.Errorf("%s of %s refused: %s", s.Action, t.in.BMM, s.Error)
		}
		return false, nil
	}
	if problem := t.verify(ctx); problem != "" {
		s.State, s.Error = api.StateFailed, "verification: "+problem
		return false, nil
	}
	s.State = api.StateSucceeded
	return true, nil
}

// firmwareNext is the firmware refusal of the runbook's replace (its
// input in) with the commands that proceed: the runbook again with
// --apply-firmware, that replace alone with it (the hardware facts
// confirmed and the runbook's safeguard mode kept, so neither refuses the
// retry), or the runbook forced to skip the check.
func (t *troubleshooter) firmwareNext(fw firmware.Refusal, in api.ActionInput) string {
	again, replace, forced := t.in, in, t.in
	again.ApplyFirmware, replace.ApplyFirmware = true, true
	forced.ApplyFirmware, forced.Force = false, true
	return fw.InRunbook(again.Command(), replace.Command(), forced.Command())
}

// awaitConfirmation blocks until confirm-replace arrives with valid
// parameters; invalid ones are shown in the status and waited past.
func (t *troubleshooter) awaitConfirmation(ctx workflow.Context) (api.ReplaceParams, error) {
	t.st.Phase = api.TroubleshootAwaitConfirm
	t.st.Message = fmt.Sprintf("replace of %s waits for the physical repair: confirm with `starter bmm troubleshoot-confirm --cluster %s --bmm %s` (signal %s)",
		t.in.BMM, t.in.Cluster, t.in.BMM, api.SignalConfirmReplace)
	ch := workflow.GetSignalChannel(ctx, api.SignalConfirmReplace)
	for {
		var c api.ConfirmReplace
		if !ch.Receive(ctx, &c) {
			return api.ReplaceParams{}, ctx.Err()
		}
		rp := c.ReplaceParams
		if rp.SafeguardMode == "" {
			rp.SafeguardMode = api.SafeguardNone // the runbook evacuates a BMM still Ready
		}
		if err := rp.Validate(); err != nil {
			t.st.Message = "confirmation refused: " + err.Error() + "; send it again"
			continue
		}
		t.st.Phase, t.st.Message = api.TroubleshootRunning, "replace confirmed"
		return rp, nil
	}
}

// verify re-reads the BMM after a rung: the node must be Ready and the
// ledger must show it provisioned and not Unhealthy. It returns what is
// wrong, or "".
func (t *troubleshooter) verify(ctx workflow.Context) string {
	cs, err := kernel.LedgerOf(t.in.Cluster).Read(ctx)
	if err != nil {
		return "read the ledger: " + temporalerr.Message(err)
	}
	b, ok := cs.Cluster.BMM(t.in.BMM)
	if !ok {
		return "the BMM left the ledger"
	}
	switch {
	case b.MarkedUnhealthy():
		return "still marked Unhealthy"
	case b.DetailedStatus != model.BMMProvisioned:
		return "detailedStatus is " + b.DetailedStatus
	}
	if err := kernel.NewSteps(ctx, t.in.Cluster, kernel.TargetsFor(cs, *b)).CheckReady(); err != nil {
		return err.Error()
	}
	return ""
}

// firmwareRefusal is the firmware check's refusal of the runbook's
// replace, from the child's error details.
func firmwareRefusal(err error) (firmware.Refusal, bool) {
	var ae *temporal.ApplicationError
	var r firmware.Refusal
	if !errors.As(err, &ae) || ae.Type() != api.ErrPrecheck || !ae.HasDetails() || ae.Details(&r) != nil || r.Finding == "" {
		return r, false
	}
	return r, true
}
