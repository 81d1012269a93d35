package replaceroles

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/cpgate"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// opReplaceRoles is the lease operation of a role change (disruptive).
// Older histories leased as reimage; the operation is only the lease's
// label, so they replay the same.
const opReplaceRoles = lease.OpReplaceRoles

// lease takes the change's server through the lease prologue (an active
// KCP's lease is gated live there); removes: the change takes the KCP out
// of the member set, so the gate keeps the quorum of those that stay
// (before changeRemovalQuorum it judged a disruption: three KCPs could
// never become one, as one rack growing to two needs).
func (r *replacer) lease(ctx workflow.Context, bmm string, removes bool) (kernel.Held, error) {
	removes = removes && workflow.GetVersion(ctx, changeRemovalQuorum, workflow.DefaultVersion, 1) == 1
	h, stage, err := kernel.LedgerOf(r.cluster).Open(ctx, kernel.Opening{Req: lease.Request{BMM: bmm, Holder: r.holder, Operation: opReplaceRoles}, Removes: removes})
	if stage != kernel.Opened {
		return kernel.Held{}, fmt.Errorf("lease on %s: %s", bmm, temporalerr.Message(err))
	}
	return h, nil
}

// gate asks the live gate about the change on the whole ledger read now: a
// promotion adds the server to the member set, a retire removes it. A
// "move the leader" answer allows: removing a leading member makes etcd
// elect another, as the upgrade's retire relies on.
func (r *replacer) gate(ctx workflow.Context, bmm string, promote bool) (api.ClusterState, error) {
	cs, err := kernel.LedgerOf(r.cluster).Read(ctx)
	if err != nil {
		return cs, fmt.Errorf("read the ledger: %s", temporalerr.Message(err))
	}
	d, _ := kernel.LiveGate(ctx, cs, kernel.GateAsk{Target: bmm, Op: opReplaceRoles, Promote: promote, Removes: !promote})
	if d.Outcome == cpgate.Refuse {
		return cs, kernel.GateRefusal{Decision: d}
	}
	return cs, nil
}

// serving reports whether the server runs as it should: provisioned on
// version, its node Ready with a writable root filesystem.
func serving(st *kernel.Steps, b model.BMM, version string) bool {
	if b.DetailedStatus != model.BMMProvisioned || b.RuntimeVersion != version {
		return false
	}
	ns, err := st.ReadNode()
	return err == nil && kernel.SpareServes(ns, true)
}

// provisionIfIdle provisions the server to the version the cluster
// converges to unless it already serves (an idle spare is powered off).
func (r *replacer) provisionIfIdle(ctx workflow.Context, h kernel.Held, b model.BMM) error {
	st := kernel.NewSteps(ctx, r.cluster, kernel.TargetsFor(h.CS, b))
	version := kernel.InstallVersion(ctx, h.CS, b)
	if serving(st, b, version) {
		return nil
	}
	if ok, detail := kernel.Provision(ctx, st, h.CS, version, kernel.RemediationLimit(h.CS.Remediation.ReprovisionTimeout, "reprovisionTimeout")); !ok {
		return fmt.Errorf("provision %s: %s", b.Name, detail)
	}
	return nil
}

// promote makes a management server or the spare an active KCP, as the
// failover promotes the spare: provisioned if idle, allowed by the live
// gate as a new member, relabelled (the node's label makes it join the
// control plane) and awaited as a healthy etcd voter.
func (r *replacer) promote(ctx workflow.Context, c placement.Change) error {
	h, err := r.lease(ctx, c.Name, false)
	if err != nil {
		return err
	}
	defer h.Release()
	if err := r.provisionIfIdle(ctx, h, h.BM); err != nil {
		return err
	}
	cs, err := r.gate(ctx, c.Name, true)
	if err != nil {
		return err
	}
	if err := kernel.LedgerOf(r.cluster).Record(ctx, api.BMMPatch{BMM: c.Name, Roles: []model.Role{model.RoleKCP}, ManagementGroup: api.Str("")}); err != nil {
		return err
	}
	if m := kernel.MemberOf(cs, c.Name); m != nil {
		if err := m.Await(ctx); err != nil {
			return fmt.Errorf("relabelled kcp, but %v", err)
		}
	}
	return nil
}

// retire takes an active KCP out of the control plane to wait as the
// spare, with the upgrade's retire once the gate allows its removal.
func (r *replacer) retire(ctx workflow.Context, c placement.Change) error {
	h, err := r.lease(ctx, c.Name, true)
	if err != nil {
		return err
	}
	defer h.Release()
	if _, err := r.gate(ctx, c.Name, false); err != nil {
		return err
	}
	return kernel.RetireKCP(ctx, r.cluster, c.Name, lease.Request{Operation: opReplaceRoles},
		"Retired from the control plane by the re-placement: powered off, waiting as the spare")
}

// demote takes an active KCP the table no longer needs out of the control
// plane, as the failover does with a failed one: its member removed,
// relabelled management (or compute), then provisioned so it boots
// without the control plane.
func (r *replacer) demote(ctx workflow.Context, c placement.Change) error {
	h, err := r.lease(ctx, c.Name, true)
	if err != nil {
		return err
	}
	defer h.Release()
	cs, err := r.gate(ctx, c.Name, false)
	if err != nil {
		return err
	}
	if m := kernel.MemberOf(cs, c.Name); m != nil {
		if err := m.Remove(ctx); err != nil {
			return err
		}
	}
	if err := kernel.LedgerOf(r.cluster).Record(ctx, api.BMMPatch{BMM: c.Name, Roles: []model.Role{c.To}, ManagementGroup: api.Str(c.ManagementGroup)}); err != nil {
		return err
	}
	b := h.BM
	b.Roles, b.ManagementGroup = []model.Role{c.To}, c.ManagementGroup
	st := kernel.NewSteps(ctx, r.cluster, kernel.TargetsFor(h.CS, b))
	version := kernel.InstallVersion(ctx, h.CS, b)
	if ok, detail := kernel.Provision(ctx, st, h.CS, version, kernel.RemediationLimit(h.CS.Remediation.ReprovisionTimeout, "reprovisionTimeout")); !ok {
		return fmt.Errorf("relabelled %s, but provision: %s", c.To, detail)
	}
	return nil
}

// relabel changes a role outside the active control plane: a management
// server becomes the spare (it stays running: a promotion is then quick),
// or a spare the table no longer needs becomes management again,
// provisioned first when it idles powered off.
func (r *replacer) relabel(ctx workflow.Context, c placement.Change) error {
	h, err := r.lease(ctx, c.Name, false)
	if err != nil {
		return err
	}
	defer h.Release()
	if err := kernel.LedgerOf(r.cluster).Record(ctx, api.BMMPatch{BMM: c.Name, Roles: []model.Role{c.To}, ManagementGroup: api.Str(c.ManagementGroup)}); err != nil {
		return err
	}
	if c.To == model.RoleKCPSpare {
		return nil
	}
	b := h.BM
	b.Roles, b.ManagementGroup = []model.Role{c.To}, c.ManagementGroup
	return r.provisionIfIdle(ctx, h, b)
}
