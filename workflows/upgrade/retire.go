package upgrade

import (
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// retire takes the last KCP of the plan out of the control plane; it waits
// as the new spare on the version it has (docs/behaviour-upgrade.md#upgrade: expected). The
// live gate has allowed its removal (gateKCPStep: the rest healthy, quorum
// kept by the members that stay). Its member is removed and it is
// relabelled spare; then, under a lease on the spare it now is, cordoned,
// powered off and recorded Available — a spare that failover provisions
// when it is needed. Older histories only relabel it (and remove its
// member).
func (u *upgrade) retire(ctx workflow.Context, bmm string) error {
	if workflow.GetVersion(ctx, changeUpgradeRetirePowersOff, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		if err := u.removeMember(ctx, bmm); err != nil {
			return err
		}
		return u.record(ctx, api.BMMPatch{BMM: bmm, Roles: []model.Role{model.RoleKCPSpare}, DetailedStatus: api.Str(model.BMMAvailable)})
	}
	return kernel.RetireKCP(ctx, u.in.Cluster, bmm, lease.Request{Operation: lease.OpUpgrade, AllowWhileUpdating: true},
		"Retired from the control plane by the upgrade to "+u.in.TargetVersion+": powered off, waiting as the spare")
}
