package remediation

import (
	"errors"
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// KCPFailoverWorkflow swaps a KCP (or the spare) that remediation marked
// Unhealthy (id failover:<cluster>; docs/behaviour.md#remediation, KCP
// failover), following remediate.PlanFailover:
//
//  1. the spare becomes an active KCP at once (reimaged to the cluster's
//     runtime first when it is deprovisioned or not Ready);
//  2. a healthy management server becomes the new spare;
//  3. the failed server is relabelled management and provisioned; if that
//     fails, the rest of the management ladder runs here (a child
//     RemediationWorkflow would refuse: the server is marked Unhealthy),
//     and if that fails too it stays Unhealthy.
//
// Roles change in the ledger, which writes them to the node labels. The
// order keeps the active control plane at its count: the spare is a KCP
// before the failed server stops being one.
func KCPFailoverWorkflow(ctx workflow.Context, in api.FailoverInput) (api.FailoverStatus, error) {
	f := &failover{in: in, holder: workflow.GetInfo(ctx).WorkflowExecution.ID}
	f.st = api.FailoverStatus{Cluster: in.Cluster, Failed: in.Failed}
	if err := workflow.SetQueryHandler(ctx, api.QueryStatus, func() (api.FailoverStatus, error) { return f.st, nil }); err != nil {
		return f.st, err
	}
	err := f.run(ctx)
	if err == nil && ctx.Err() != nil {
		// The steps after the cut were cut short and say little; what a
		// re-run or the monitor finds is what the ledger shows.
		err = fmt.Errorf("cancelled%s; the ledger shows where it stopped (a server left provisioning is remediated by the provisioning trigger)", f.runningStep())
	}
	if err != nil {
		f.st.Error = err.Error()
	}
	f.st.Finished = true
	return f.st, nil
}

type failover struct {
	in     api.FailoverInput
	holder string
	st     api.FailoverStatus
	cs     api.ClusterState
	cur    remediate.Step // the management ladder's step in flight
	// fallen: servers whose provisioning for promotion failed, relabelled
	// management and sent to its ladder once the control plane is whole.
	fallen []string
}

func (f *failover) run(ctx workflow.Context) error {
	var err error
	if f.cs, err = kernel.LedgerOf(f.in.Cluster).Read(ctx); err != nil {
		return fmt.Errorf("read the ledger: %s", temporalerr.Message(err))
	}
	p, resumed := remediate.FailoverPlan{}, false
	if resumesFailover(ctx) {
		p, resumed = resumedFailover(f.cs.Cluster, f.in.Failed)
	}
	if !resumed {
		p, err = remediate.PlanFailover(f.cs.Cluster, f.in.Failed)
		switch {
		case errors.Is(err, remediate.ErrNoSpare) && f.keepsSpare() && fallsBack(ctx):
			p, err = remediate.PlanStandIn(f.cs.Cluster, f.in.Failed, err)
			if err != nil {
				return f.short(ctx, err)
			}
		case errors.Is(err, remediate.ErrNoSpare) && !f.keepsSpare() && standsInOnOneRack(ctx):
			// No stand-in: the KCP is taken out as before, saying why.
			p, err = remediate.PlanStandIn(f.cs.Cluster, f.in.Failed, err)
		}
	}
	if err != nil {
		return f.withoutSpare(ctx, err)
	}
	f.st.Plan = &p
	// Every lease of this workflow goes when it ends, however it ends (the
	// parent's lease on the failed server is the parent's to release).
	defer kernel.LedgerOf(f.in.Cluster).Release(ctx, "", f.holder)
	// Leases first, before any change: the spare is essential; a new spare
	// that someone else holds is skipped (the slot stays empty).
	failedHolder := f.in.Holder
	if failedHolder == "" {
		failedHolder = f.holder
		if err := f.lease(ctx, p.Failed, failedHolder); err != nil {
			return fmt.Errorf("lease on the failed server %s: %s", p.Failed, err)
		}
	}
	if p.Spare != "" {
		if err := f.lease(ctx, p.Spare, f.holder); err != nil {
			return fmt.Errorf("lease on the spare %s: %s; %s stays marked Unhealthy", p.Spare, err, p.Failed)
		}
	}
	newSpare := p.NewSpare
	if newSpare != "" {
		if err := f.lease(ctx, newSpare, f.holder); err != nil {
			p.NoNewSpare = fmt.Sprintf("%s could not become the spare: %s", newSpare, err)
			newSpare = ""
			f.st.Plan = &p
		}
	}
	if p.Spare != "" {
		if err := f.promoteOrFallBack(ctx, &p, &newSpare); err != nil {
			return err
		}
		f.st.Promoted = true
	}
	if newSpare != "" {
		f.setRole(ctx, newSpare, model.RoleKCPSpare, "")
		f.st.NewSpare = newSpare
	}
	f.setRole(ctx, p.Failed, model.RoleManagement, p.FailedNewGroup)
	f.reprovisionFailed(ctx, p.Failed)
	f.remediateFallen(ctx)
	return nil
}

func (f *failover) lease(ctx workflow.Context, bmm, holder string) error {
	_, err := kernel.LedgerOf(f.in.Cluster).Acquire(ctx, lease.Request{
		BMM: bmm, Holder: holder, Operation: lease.OpFailover, AllowDegraded: true})
	if err != nil {
		return fmt.Errorf("%s", temporalerr.Message(err))
	}
	return nil
}

// promote makes the spare an active KCP. A spare that is deprovisioned
// (Available, as an upgrade leaves it), not Ready or on another runtime is
// provisioned to the cluster's runtime first: an active KCP must serve.
func (f *failover) promote(ctx workflow.Context, spare string) error {
	b, _ := f.cs.Cluster.BMM(spare)
	st := kernel.NewSteps(ctx, f.in.Cluster, kernel.TargetsFor(f.cs, *b))
	gated := promoteGated(ctx)
	// The version the control plane converges to (an upgrade may be under way).
	version := kernel.InstallVersionOr(ctx, f.cs, *b, "")
	ready := b.DetailedStatus == model.BMMProvisioned && b.RuntimeVersion == version
	if ready {
		ns, err := st.ReadNode()
		ready = err == nil && kernel.SpareServes(ns, gated)
	}
	if !ready {
		rec := f.step(ctx, remediate.Reprovision)
		ok, detail := kernel.Provision(ctx, st, f.cs, version, kernel.RemediationLimit(f.cs.Remediation.ReprovisionTimeout, "reprovisionTimeout"))
		f.done(ctx, rec, ok, "provision the spare "+spare+": "+detail)
		if !ok {
			if fallsBack(ctx) {
				return &provisionFailed{bmm: spare, detail: detail}
			}
			return f.spareFailed(ctx, st, spare, detail)
		}
	}
	if gated {
		if err := f.gatePromotion(ctx, spare); err != nil {
			return err
		}
	}
	members := handsOverMember(ctx)
	sole := members && f.soleMember()
	if members && !sole {
		if err := f.removeFailedMember(ctx); err != nil {
			return fmt.Errorf("%v; %s stays marked Unhealthy and no role changed", err, f.in.Failed)
		}
	}
	f.setRole(ctx, spare, model.RoleKCP, "")
	if !members {
		return nil
	}
	if err := f.awaitSpareMember(ctx, spare); err != nil {
		return err
	}
	if sole {
		return f.removeFailedMember(ctx)
	}
	return nil
}

func (f *failover) setRole(ctx workflow.Context, bmm string, role model.Role, group string) {
	b, _ := f.cs.Cluster.BMM(bmm)
	kernel.NewSteps(ctx, f.in.Cluster, kernel.TargetsFor(f.cs, *b)).Record(api.BMMPatch{Roles: []model.Role{role}, ManagementGroup: api.Str(group)})
}

// reprovisionFailed provisions the failed server as management. A success
// clears its Unhealthy mark: it serves again, now as a management server.
// A failure hands over to the management ladder (docs/behaviour.md#remediation: the
// management ladder runs from the top): a reboot, one
// reprovision, then it stays marked Unhealthy and its node is removed.
// Its position is recorded as a management ladder, so a failure of the
// relabelled server within the damping window continues it.
func (f *failover) reprovisionFailed(ctx workflow.Context, failed string) {
	b, _ := f.cs.Cluster.BMM(failed)
	bm := *b
	bm.Roles, bm.ManagementGroup = []model.Role{model.RoleManagement}, f.st.Plan.FailedNewGroup
	st := kernel.NewSteps(ctx, f.in.Cluster, kernel.TargetsFor(f.cs, bm))
	version := kernel.InstallVersion(ctx, f.cs, bm)
	rec := f.step(ctx, remediate.Reprovision)
	ok, detail := kernel.ProvisionClearing(ctx, st, f.cs, version, kernel.RemediationLimit(f.cs.Remediation.ReprovisionTimeout, "reprovisionTimeout"), true)
	f.done(ctx, rec, ok, detail)
	if ok {
		f.st.FailedOutcome, f.st.FailedRecovered = "provisioned as management", true
		return
	}
	if ctx.Err() != nil { // cancelled: no ladder climbs on a cut step
		f.st.FailedOutcome = "cancelled while provisioning as management"
		return
	}
	l := newRemLadder(ctx, f.cs, bm, "", &f.st.Steps, &f.cur, &f.st.FailedOutcome)
	var done []remediate.StepResult
	if l.marks = workflow.GetVersion(ctx, changeFailoverManagementLadder, workflow.DefaultVersion, 1) == 1; !l.marks {
		// Before: the provisioning counted as the ladder's reprovision and
		// the KCP ladder's reboot as its reboot, so it went straight to
		// Unhealthy.
		done = []remediate.StepResult{{Step: remediate.Reprovision, Detail: detail}}
		if f.in.Rebooted {
			done = append(done, remediate.StepResult{Step: remediate.Reboot, Detail: "rebooted by the remediation already"})
		}
	}
	outcome, recovered := l.climb(model.RoleManagement, done)
	f.st.FailedOutcome, f.st.FailedRecovered = "provisioning as management failed ("+detail+"); "+outcome, recovered
	if !recovered {
		return
	}
	// The reboot brought it back: it serves as management again.
	st.Record(api.BMMPatch{DetailedStatus: api.Str(model.BMMProvisioned), DetailedStatusMessage: api.Str(""), ClearUnhealthy: true})
}

// runningStep names the last step the failover began, for its error.
func (f *failover) runningStep() string {
	if n := len(f.st.Steps); n > 0 {
		return " during " + string(f.st.Steps[n-1].Step)
	}
	return ""
}

func (f *failover) step(ctx workflow.Context, s remediate.Step) int {
	f.st.Steps = append(f.st.Steps, api.StepRecord{Step: s, StartedAt: workflow.Now(ctx)})
	return len(f.st.Steps) - 1
}

func (f *failover) done(ctx workflow.Context, i int, ok bool, detail string) {
	now := workflow.Now(ctx)
	f.st.Steps[i].OK, f.st.Steps[i].FinishedAt = ok, &now
	if !ok {
		f.st.Steps[i].Detail = detail
	}
}
