package workflows

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"go.temporal.io/sdk/workflow"
)

// retire takes the last KCP of the plan out of the control plane; it waits
// as the new spare on the version it has (docs/behaviour.md#upgrade: expected). The
// live gate has allowed its removal (gateKCPStep: the rest healthy, quorum
// kept by the members that stay). Its member is removed and it is
// relabelled spare; then, under a lease on the spare it now is, cordoned,
// powered off and recorded Available — a spare that failover provisions
// when it is needed. Older histories only relabel it (and remove its
// member).
func (u *upgrade) retire(ctx workflow.Context, bmm string) error {
	if workflow.GetVersion(ctx, "upgrade-retire-powers-off", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		if err := u.removeMember(ctx, bmm); err != nil {
			return err
		}
		return u.record(ctx, api.BMMPatch{BMM: bmm, Roles: []model.Role{model.RoleKCPSpare}, DetailedStatus: api.Str(model.BMMAvailable)})
	}
	return retireKCP(ctx, u.in.Cluster, bmm, lease.Request{Operation: lease.OpUpgrade, AllowWhileUpdating: true},
		"Retired from the control plane by the upgrade to "+u.in.TargetVersion+": powered off, waiting as the spare")
}

// retireKCP takes bmm, an active KCP the live gate allowed to leave, out of
// the control plane: its member is removed and it is relabelled spare;
// then, under a lease (req's operation and flags; this workflow holds it)
// on the spare it now is, cordoned, powered off and recorded Available
// with message. The upgrade's retire and the re-placement share it.
func retireKCP(ctx workflow.Context, cluster, bmm string, req lease.Request, message string) error {
	cs, err := ledgerOf(cluster).read(ctx)
	if err != nil {
		return err
	}
	if m := memberOf(cs, bmm); m != nil {
		if err := m.remove(ctx); err != nil {
			return err
		}
	}
	if err := ledgerOf(cluster).record(ctx, api.BMMPatch{BMM: bmm, Roles: []model.Role{model.RoleKCPSpare}}); err != nil {
		return err
	}
	req.BMM, req.Holder = bmm, workflow.GetInfo(ctx).WorkflowExecution.ID
	h, stage, err := ledgerOf(cluster).open(ctx, opening{req: req})
	if stage != opened {
		return fmt.Errorf("relabelled spare, but no lease to power it off: %s", temporalerr.Message(err))
	}
	defer h.release()
	st := newSteps(ctx, cluster, targetsFor(h.cs, h.bm))
	if err := st.cordon(); err != nil {
		return fmt.Errorf("relabelled spare, but cordon: %s", temporalerr.Message(err))
	}
	if err := st.powerOff(false, timeoutLimit(siteLimits(ctx, h.cs), "powerOff")); err != nil {
		return fmt.Errorf("relabelled spare, but power off: %s", temporalerr.Message(err))
	}
	return ledgerOf(cluster).record(ctx, api.BMMPatch{BMM: bmm, DetailedStatus: api.Str(model.BMMAvailable),
		DetailedStatusMessage: api.Str(message)})
}
