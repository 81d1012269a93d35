package wftest

import (
	"context"
	"time"

	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/breakglass"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// The fake site's ledger: the cluster state, leases as the ledger grants
// them, and the action ids it hands out.

func (f *FakeSite) mockLedger(env *testsuite.TestWorkflowEnvironment) {
	f.answer(env, la.ReadCluster, "ReadCluster", func(_ context.Context, _ string) (api.ClusterState, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		return f.snapshot(), nil
	})
	f.answer(env, la.ReadBMM, "ReadBMM", func(_ context.Context, in ledger.ReadBMMInput) (api.ClusterState, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		return f.snapshot().ForBMM(in.BMM)
	})
	f.answer(env, la.SetClusterStatus, "SetClusterStatus", func(_ context.Context, in ledger.ClusterStatusInput) error {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		f.St.Cluster.DetailedStatus, f.St.Cluster.DetailedStatusMessage = in.Status.DetailedStatus, in.Status.DetailedStatusMessage
		if in.Status.RuntimeVersion != "" {
			f.St.Cluster.RuntimeVersion = in.Status.RuntimeVersion
		}
		if in.Status.UpgradeTarget != "" {
			f.St.UpgradeTarget = in.Status.UpgradeTarget
		}
		if in.Status.ClearUpgrade {
			f.St.UpgradeTarget = ""
		}
		f.logf("cluster %s", in.Status.DetailedStatus)
		return nil
	})
	f.answer(env, la.RecordBMM, "RecordBMM", func(_ context.Context, in ledger.RecordInput) error {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		if f.OnStep != nil {
			// A cut may fall on a ledger write too (not a machine step).
			if err := f.OnStep("RecordBMM", in.Patch.BMM); err != nil {
				return err
			}
		}
		f.RecordPatch(in.Patch, env.Now())
		return nil
	})
	f.answer(env, la.RecordBMMs, "RecordBMMs", func(_ context.Context, in ledger.RecordManyInput) error {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		for _, p := range in.Patches {
			f.RecordPatch(p, env.Now())
		}
		return nil
	})
	// As the ledger: an empty holder gets the next action id.
	f.answer(env, la.AcquireLease, "AcquireLease", func(_ context.Context, in ledger.AcquireInput) (api.AcquireResult, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		r := in.Request
		if r.Holder == "" {
			r.Holder = api.ActionID(f.St.Cluster.Name, r.BMM, f.St.ActionSeq+1)
		}
		if r.ObservedAt != nil && f.StaleAcquires > 0 {
			f.StaleAcquires--
			return api.AcquireResult{}, temporal.NewNonRetryableApplicationError("bmm "+r.BMM+": the control plane was observed 33s before the lease was asked (limit 30s): observe again", ledger.ErrObservationStale, nil)
		}
		if err := lease.Check(f.St.Cluster, f.St.Leases, r); err != nil {
			return api.AcquireResult{}, temporal.NewNonRetryableApplicationError(err.Error(), ledger.ErrLeaseRejected, nil)
		}
		if in.Request.Holder == "" {
			f.St.ActionSeq++
		}
		if had, _ := lease.HeldOn(f.St.Leases, r.BMM); r.Force && had.Holder != r.Holder {
			f.St.BreakGlass = breakglass.Append(f.St.BreakGlass, breakglass.Forced(f.St, r, env.Now()))
		}
		f.St.Leases = lease.Grant(f.St.Leases, r, f.Bmm(r.BMM).HasRole(model.RoleKCP), env.Now())
		return api.AcquireResult{Holder: r.Holder}, nil
	})
	f.answer(env, la.ReleaseLease, "ReleaseLease", func(_ context.Context, in ledger.ReleaseInput) error {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		f.St.Leases = lease.Release(f.St.Leases, in.Request.BMM, in.Request.Holder)
		return nil
	})
	f.answer(env, la.HolderStates, "HolderStates", func(_ context.Context, ids []string) (map[string]bool, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		out := map[string]bool{}
		for _, id := range ids {
			out[id] = f.running[id]
		}
		return out, nil
	})
}

// RecordPatch applies a patch as the ledger does (mu held).
func (f *FakeSite) RecordPatch(p api.BMMPatch, now time.Time) {
	api.ApplyPatch(f.Bmm(p.BMM), p, now)
	if p.BMC != nil {
		delete(f.Broken, p.BMM) // the repaired hardware is in
	}
	if len(p.Roles) > 0 {
		f.logf("role %s %s", p.BMM, p.Roles[0])
		f.Event(events.NodeLabel, p.BMM, map[string]any{"labels": map[string]string{model.LabelRole: string(p.Roles[0])}})
	}
	if n := f.Nodes[p.BMM]; n != nil && n.Labels != nil && len(model.NodeLabelDrift(model.ManagedNodeLabels(*f.Bmm(p.BMM)), p.NodeLabels)) > 0 {
		// As the ledger: a node seen with other labels is labelled again.
		n.Labels = nil
		f.logf("relabel %s", p.BMM)
	}
	if m := p.DetailedStatusMessage; p.MarkUnhealthy != nil || m != nil && *m == model.UnhealthyMessage {
		f.logf("unhealthy %s", p.BMM)
	}
}

// snapshot is a copy of the ledger a workflow may keep (mu held).
func (f *FakeSite) snapshot() api.ClusterState {
	st := f.St
	st.Cluster.BMMs = append([]model.BMM(nil), f.St.Cluster.BMMs...)
	for i := range st.Cluster.BMMs {
		st.Cluster.BMMs[i].Roles = append([]model.Role(nil), st.Cluster.BMMs[i].Roles...)
	}
	st.Leases = append([]lease.Lease(nil), f.St.Leases...)
	return st
}
