package workflows

import (
	"fmt"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/lease"
	"go.temporal.io/sdk/workflow"
)

// promoteGated reports whether the live gate is on for this failover's
// promotion (version 1): a spare with a read-only root filesystem is
// reprovisioned like a NotReady one, and the promotion is checked first.
func promoteGated(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, "failover-promote-gate", workflow.DefaultVersion, 1) == 1
}

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
// (reference 004's maxUnhealthy = 1, as the storm guard applies it).
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

// handOverMember, where the site exposes etcd: the promoted spare's member
// joins (as the lab's and kubeadm's control-plane join does once the node
// is labelled) and is awaited as a healthy voter, then the failed KCP's
// member is removed, so the member set is the active KCPs again. In that
// order: with the dead member still counted, a learner changes nothing,
// whereas removing it first would leave two voters with no tolerance.
func (f *failover) handOverMember(ctx workflow.Context, spare string) error {
	if workflow.GetVersion(ctx, "failover-hands-over-member", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	if spare != "" {
		if m := memberOf(f.cs, spare); m != nil {
			if err := m.await(ctx); err != nil {
				return fmt.Errorf("the spare %s was promoted but %v", spare, err)
			}
		}
	}
	if m := memberOf(f.cs, f.in.Failed); m != nil {
		if err := m.remove(ctx); err != nil {
			return fmt.Errorf("the failed KCP %s could not leave etcd: %v", f.in.Failed, err)
		}
	}
	return nil
}
