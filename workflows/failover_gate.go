package workflows

import (
	"fmt"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"go.temporal.io/sdk/workflow"
)

// spareServes is the promotion's readiness test of the spare's node: Ready
// and, with the gate, a writable root filesystem (a spare that fell sick
// while the KCP was down is provisioned again, not promoted as it is).
func spareServes(ns kube.NodeStatus, gated bool) bool {
	return ns.IsReady() && (!gated || !ns.ReadOnlyRootFS)
}

// gatePromotion asks the live gate whether the spare may become a member in
// place of the failed KCP: every other member healthy, the spare fit. A
// refusal stops the failover before any role changes, and the failed KCP
// stays marked Unhealthy: promoting into a control plane that has lost a
// second member, or promoting a sick spare, is for an operator to decide
// (maxUnhealthy = 1, docs/behaviour.md#remediation, as the storm guard applies it).
func (f *failover) gatePromotion(ctx workflow.Context, spare string) error {
	cs, err := ledgerOf(f.in.Cluster).read(ctx)
	if err != nil {
		return fmt.Errorf("read the ledger before promoting %s: %v", spare, err)
	}
	d, _ := liveGate(ctx, cs, gateAsk{target: spare, op: lease.OpFailover, promote: true, replacing: f.in.Failed})
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
	if m := memberOf(f.cs, f.in.Failed); m != nil {
		if err := m.remove(ctx); err != nil {
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
	m := memberOf(f.cs, f.in.Failed)
	return m != nil && m.sole
}

// awaitSpareMember waits for the promoted spare's member to join (kubeadm's
// control-plane join, as the lab's, once the node is labelled) and become
// a healthy voter: until then the control plane is a member short.
func (f *failover) awaitSpareMember(ctx workflow.Context, spare string) error {
	if m := memberOf(f.cs, spare); m != nil {
		if err := m.await(ctx); err != nil {
			return fmt.Errorf("the spare %s was promoted but %v", spare, err)
		}
	}
	return nil
}
