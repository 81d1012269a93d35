package cluster

import (
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"go.temporal.io/sdk/workflow"
)

// registerUpdateChangeID is the change id of the registration Update in
// ctx (an Update handler's context only).
func registerUpdateChangeID(ctx workflow.Context) string {
	return changeRegisterReplans + ":" + workflow.GetCurrentUpdateInfo(ctx).ID
}

// joinRoles is the role each new server joins with. Older histories take
// the client's placement of the new inventory. Now the re-placement plan of
// the ledger as it is decides: on an empty ledger that is the same
// placement; on a running one a new server joins as management or compute
// and any control-plane change is left to the re-placement workflow.
func (l *clusterLedger) joinRoles(ctx workflow.Context, changeID string, inv model.Inventory, placed map[string]placement.Assignment) func(model.ServerSpec) placement.Assignment {
	old := func(s model.ServerSpec) placement.Assignment { return placed[s.Name] }
	if workflow.GetVersion(ctx, changeID, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return old
	}
	p, err := placement.PlanRegistration(l.st.Cluster.BMMs, &inv)
	if err != nil {
		// The inventory was validated by the client; an inventory the plan
		// cannot read joins as it says, never as a KCP or spare.
		workflow.GetLogger(ctx).Warn("no re-placement plan; new servers join with their inventory role", "error", err)
	}
	return func(s model.ServerSpec) placement.Assignment {
		if a, ok := p.JoinRole(s.Name); ok {
			return a
		}
		a := placement.Assignment{Name: s.Name, Role: model.RoleManagement}
		if s.Role == model.RoleCompute {
			a.Role = model.RoleCompute
		}
		return a
	}
}

// refuseBreakingTable refuses a registration that would break the
// placement table (docs/behaviour.md#placement: the spare's rack removed with no server to take over, an
// active KCP removed, ...): placement.Replan.RegistrationErr.
func refuseBreakingTable(current []model.BMM, inv model.Inventory) error {
	p, err := placement.PlanRegistration(current, &inv)
	if err != nil {
		return err
	}
	return p.RegistrationErr()
}
