package remediation

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// gatePromotion asks the live gate whether the spare may become a member in
// place of the failed KCP: every other member healthy, the spare fit. A
// refusal stops the failover before any role changes, and the failed KCP
// stays marked Unhealthy: promoting into a control plane that has lost a
// second member, or promoting a sick spare, is for an operator to decide
// (maxUnhealthy = 1, docs/behaviour.md#remediation, as the storm guard applies it).
func (f *failover) gatePromotion(ctx workflow.Context, spare string) error {
	cs, err := kernel.LedgerOf(f.in.Cluster).Read(ctx)
	if err != nil {
		return fmt.Errorf("read the ledger before promoting %s: %v", spare, err)
	}
	d, _ := kernel.LiveGate(ctx, cs, kernel.GateAsk{Target: spare, Op: lease.OpFailover, Promote: true, Replacing: f.in.Failed})
	if d.Allowed() {
		return nil
	}
	return fmt.Errorf("promotion of the spare %s refused by the live control-plane check: %s; %s stays marked Unhealthy and no role changed",
		spare, d.Reason, f.in.Failed)
}

// removeFailedMember takes the failed KCP's member out before the spare
// joins. In that order because etcd refuses to add any member, a learner
// too, while its leader is not connected to every voter (strict reconfig
// check: ErrUnhealthy) — a dead member blocks every join until removed,
// as Cluster API's remediation removes it before it scales up.
func (f *failover) removeFailedMember(ctx workflow.Context) error {
	b, ok := f.cs.Cluster.BMM(f.in.Failed)
	if !ok || !b.HasRole(model.RoleKCP) {
		return nil
	}
	if m := kernel.MemberOf(f.cs, f.in.Failed); m != nil {
		if err := m.Remove(ctx); err != nil {
			return fmt.Errorf("the failed KCP %s could not leave etcd: %v", f.in.Failed, err)
		}
	}
	return nil
}

// soleMember: the failed KCP's member is the whole of etcd (a two-rack
// site). Removing it first would leave no etcd at all, so there the spare
// joins first — which only an etcd that still answers allows; a two-rack
// site whose only KCP is really gone has lost its control plane, which
// no order of steps brings back.
func (f *failover) soleMember() bool {
	m := kernel.MemberOf(f.cs, f.in.Failed)
	return m != nil && m.Sole
}

// awaitSpareMember waits for the promoted spare's member to join (kubeadm's
// control-plane join, as the lab's, once the node is labelled) and become
// a healthy voter: until then the control plane is a member short.
func (f *failover) awaitSpareMember(ctx workflow.Context, spare string) error {
	if m := kernel.MemberOf(f.cs, spare); m != nil {
		if err := m.Await(ctx); err != nil {
			return fmt.Errorf("the spare %s was promoted but %v", spare, err)
		}
	}
	return nil
}
