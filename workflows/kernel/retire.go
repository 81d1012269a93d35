package kernel

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"go.temporal.io/sdk/workflow"
)

// RetireKCP takes bmm, an active KCP the live gate allowed to leave, out of
// the control plane: its member is removed and it is relabelled spare;
// then, under a lease (req's operation and flags; this workflow holds it)
// on the spare it now is, cordoned, powered off and recorded Available
// with message. The upgrade's retire and the re-placement share it.
func RetireKCP(ctx workflow.Context, cluster, bmm string, req lease.Request, message string) error {
	cs, err := LedgerOf(cluster).Read(ctx)
	if err != nil {
		return err
	}
	if m := MemberOf(cs, bmm); m != nil {
		if err := m.Remove(ctx); err != nil {
			return err
		}
	}
	if err := LedgerOf(cluster).Record(ctx, api.BMMPatch{BMM: bmm, Roles: []model.Role{model.RoleKCPSpare}}); err != nil {
		return err
	}
	req.BMM, req.Holder = bmm, workflow.GetInfo(ctx).WorkflowExecution.ID
	h, stage, err := LedgerOf(cluster).Open(ctx, Opening{Req: req})
	if stage != Opened {
		return fmt.Errorf("relabelled spare, but no lease to power it off: %s", temporalerr.Message(err))
	}
	defer h.Release()
	st := NewSteps(ctx, cluster, TargetsFor(h.CS, h.BM))
	if err := st.Cordon(); err != nil {
		return fmt.Errorf("relabelled spare, but cordon: %s", temporalerr.Message(err))
	}
	if err := st.PowerOff(false, TimeoutLimit(SiteLimits(ctx, h.CS), "powerOff")); err != nil {
		return fmt.Errorf("relabelled spare, but power off: %s", temporalerr.Message(err))
	}
	return LedgerOf(cluster).Record(ctx, api.BMMPatch{BMM: bmm, DetailedStatus: api.Str(model.BMMAvailable),
		DetailedStatusMessage: api.Str(message)})
}
