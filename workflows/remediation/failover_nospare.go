package remediation

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// withoutSpare handles a failed KCP that nothing can replace (no spare, or
// the spare marked Unhealthy too; why says which): docs/behaviour.md#remediation
// deprovisions a failed KCP, so its node is drained and deleted from
// Kubernetes (nothing is scheduled on it, controllers stop waiting for
// it) and, where the site exposes etcd, its member is removed (a dead
// member only counts against quorum). The control plane runs one member
// short until the server is replaced; the returned error says so plainly.
// Older histories (before the change) return why alone.
func (f *failover) withoutSpare(ctx workflow.Context, why error) error {
	b, ok := f.cs.Cluster.BMM(f.in.Failed)
	if !ok || remediate.RoleOf(*b) != model.RoleKCP ||
		workflow.GetVersion(ctx, changeFailoverNoSpareRemovesNode, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return why
	}
	if f.in.Holder == "" {
		if err := f.lease(ctx, f.in.Failed, f.holder); err != nil {
			return fmt.Errorf("%v; its node is left in place: lease on %s: %s", why, f.in.Failed, err)
		}
		defer kernel.LedgerOf(f.in.Cluster).Release(ctx, "", f.holder)
	}
	st := kernel.NewSteps(ctx, f.in.Cluster, kernel.TargetsFor(f.cs, *b))
	if ok, detail := remRemoveNode(st, f.cs.Remediation, kernel.SiteLimits(ctx, f.cs)); !ok {
		return fmt.Errorf("%v; removing its node failed: %s", why, detail)
	}
	done := "its node " + st.T.Node + " was drained and deleted from Kubernetes"
	if m := kernel.MemberOf(f.cs, f.in.Failed); m != nil {
		if err := m.Remove(ctx); err != nil {
			return fmt.Errorf("%v; %s, but %v", why, done, err)
		}
		done += " and its etcd member " + m.Name + " removed"
	}
	return fmt.Errorf("%v; %s: the control plane runs one KCP short until %s is replaced", why, done, f.in.Failed)
}

// spareFailed gives up on a spare whose provisioning failed during the
// promotion: it is marked Unhealthy (its ladder recorded as tried), so no
// later failover picks it as the spare or the new spare until a Replace
// repairs it; before the change it stayed in Error, unmarked, and was
// picked again. The failed KCP stays marked Unhealthy and no role changes:
// with two control-plane servers lost, the storm guard waits for an
// operator.
func (f *failover) spareFailed(ctx workflow.Context, st *kernel.Steps, spare, detail string) error {
	if workflow.GetVersion(ctx, changeFailoverMarksFailedSpare, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return fmt.Errorf("the spare %s could not be provisioned (%s); %s stays marked Unhealthy and no role changed", spare, detail, f.in.Failed)
	}
	m := remediate.Mark(model.RoleKCPSpare, []remediate.StepResult{{Step: remediate.Reprovision}, {Step: remediate.MarkUnhealthy}}, workflow.Now(ctx))
	st.Record(api.BMMPatch{DetailedStatus: api.Str(model.BMMError), DetailedStatusMessage: api.Str(model.UnhealthyMessage), Ladder: &m})
	return fmt.Errorf("the spare %s could not be provisioned (%s) and is marked Unhealthy: no failover picks it until a BMM Replace repairs it; %s stays marked Unhealthy and no role changed",
		spare, detail, f.in.Failed)
}
