package replaceroles

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// ReplaceRolesWorkflow moves the control-plane roles to the placement
// table (docs/behaviour.md#placement) after a registration changed the racks or servers (id
// replace-roles:<cluster>). It plans from the ledger (placement.PlanRoles)
// and makes the first change of the plan, then plans again: one
// control-plane server at a time, in the plan's safe order (a KCP added
// before one retires, the new spare before the old one goes), each through
// its lease and the live control-plane gate. Planning before each change
// makes a re-run after any interruption continue where the site stands,
// and a failover in between is planned around, not undone. It stops at
// the first change that fails or that the gate refuses, with the reason;
// the changes made stand and the table is still the target of a re-run.
func ReplaceRolesWorkflow(ctx workflow.Context, in api.ReplaceRolesInput) (api.ReplaceRolesStatus, error) {
	r := &replacer{cluster: in.Cluster, holder: workflow.GetInfo(ctx).WorkflowExecution.ID}
	r.st.Cluster = in.Cluster
	if err := workflow.SetQueryHandler(ctx, api.QueryStatus, func() (api.ReplaceRolesStatus, error) { return r.st, nil }); err != nil {
		return r.st, err
	}
	if err := r.run(ctx); err != nil {
		r.st.Error = err.Error()
	}
	r.st.Current, r.st.Finished = nil, true
	return r.st, nil
}

type replacer struct {
	cluster, holder string
	st              api.ReplaceRolesStatus
}

func (r *replacer) run(ctx workflow.Context) error {
	// Every lease of this workflow goes when it ends, however it ends.
	defer kernel.LedgerOf(r.cluster).Release(ctx, "", r.holder)
	limit := 0
	for {
		cs, err := kernel.LedgerOf(r.cluster).Read(ctx)
		if err != nil {
			return fmt.Errorf("read the ledger: %s", temporalerr.Message(err))
		}
		if s := cs.Cluster.DetailedStatus; s != model.ClusterRunning {
			return fmt.Errorf("cluster %s is %s, not Running: roles change only on a Running cluster (an upgrade plans with the roles it started with)", r.cluster, s)
		}
		p, err := placement.PlanRoles(cs.Cluster.BMMs)
		if err == nil {
			err = p.Err()
		}
		if err != nil {
			return err
		}
		if r.st.Plan == nil {
			r.st.Plan = append([]placement.Change{}, p.Changes...)
			// A change can make the next plan differ (a failover in
			// between); never more than twice the first plan's steps.
			limit = 2*len(p.Changes) + 2
		}
		if len(p.Changes) == 0 {
			return nil
		}
		if len(r.st.Done) >= limit {
			return fmt.Errorf("the roles did not settle after %d changes; the plan now: %s", len(r.st.Done), p.Changes[0])
		}
		c := p.Changes[0]
		r.st.Current = &c
		rec := api.RoleChangeRecord{Change: c, StartedAt: workflow.Now(ctx)}
		err = r.change(ctx, c)
		rec.FinishedAt, rec.OK = workflow.Now(ctx), err == nil
		if err != nil {
			rec.Detail = err.Error()
		}
		r.st.Done = append(r.st.Done, rec)
		if err != nil {
			return fmt.Errorf("%s: %v; the changes before it stand, and `starter cluster replace-roles` plans the rest again", c, err)
		}
	}
}

// change makes one role change (steps.go).
func (r *replacer) change(ctx workflow.Context, c placement.Change) error {
	switch {
	case c.To == model.RoleKCP:
		return r.promote(ctx, c)
	case c.From == model.RoleKCP && c.To == model.RoleKCPSpare:
		return r.retire(ctx, c)
	case c.From == model.RoleKCP:
		return r.demote(ctx, c)
	}
	return r.relabel(ctx, c)
}
