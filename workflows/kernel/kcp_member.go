package kernel

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/activities/etcd"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/etcdquorum"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// MemberJoinTimeout bounded the wait for a KCP's etcd member to join as a
// healthy, caught-up voter in the histories recorded before the table's
// etcdJoin (JoinLimit), the same default.
const MemberJoinTimeout = 10 * time.Minute

// KCPMember is a control-plane machine's etcd member on a site that exposes
// etcd (controlPlane.etcd). Cluster API's way: a machine whose disk is
// about to be wiped, or which leaves the control plane, has its member
// removed first (RemoveEtcdMemberForMachine), so the member set stays the
// active KCPs and no dead member counts against quorum; one that boots as
// a KCP joins again as a new member (kubeadm's control-plane join), and
// the next control-plane step waits until it is a healthy voter.
type KCPMember struct {
	spec  model.EtcdSpec
	Name  string // the member's name: the node's
	queue string
	// keepAtLeast is the smallest member set a removal may leave: the
	// table's active count, at most etcdquorum.MinMembers (one on a
	// two-rack site).
	keepAtLeast int
	// sole: the table runs one active KCP (two racks), so this member is
	// the whole of etcd.
	Sole bool
	// Limits bound its calls and its join (bounds.go): the site's, or
	// those of the upgrade that reimages it.
	Limits model.Timeouts
}

// MemberOf returns bmm's member, or nil where the site exposes no etcd.
// cs must be the whole ledger (the rack count sets keepAtLeast).
func MemberOf(cs api.ClusterState, bmm string) *KCPMember {
	if cs.ControlPlane == nil || cs.ControlPlane.Etcd == nil {
		return nil
	}
	name := bmm
	for _, b := range cs.Cluster.BMMs {
		if b.Name == bmm && b.NodeName != "" {
			name = b.NodeName
		}
	}
	active, _ := cs.Cluster.ControlPlaneSize()
	return &KCPMember{spec: *cs.ControlPlane.Etcd, Name: name, queue: cs.SiteTaskQueue,
		keepAtLeast: max(1, min(active, etcdquorum.MinMembers)), Sole: active == 1, Limits: cs.Limits()}
}

// WipedMemberOf is the member a reimage of bm takes down with its disk:
// an active KCP's, where the site exposes etcd; else nil.
func WipedMemberOf(cs api.ClusterState, bm model.BMM) *KCPMember {
	if !bm.HasRole(model.RoleKCP) {
		return nil
	}
	return MemberOf(cs, bm.Name)
}

// Remove takes the member out of etcd, refused (by the activity, on a
// fresh member list) when the rest would not keep quorum. A member already
// gone is fine: removal is idempotent.
func (m *KCPMember) Remove(ctx workflow.Context) error {
	rctx := OnSite(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: CallAttempt(ctx, m.Limits, 1), Summary: fmt.Sprintf("Remove etcd member %s", m.Name),
		RetryPolicy: &temporal.RetryPolicy{MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
	}), m.queue)
	in := etcd.MemberInput{Spec: m.spec, Name: m.Name, KeepAtLeast: m.keepAtLeast}
	if err := workflow.ExecuteActivity(rctx, ea.RemoveMember, in).Get(ctx, nil); err != nil {
		return fmt.Errorf("remove its etcd member %s: %s", m.Name, temporalerr.Message(err))
	}
	return nil
}

// Await waits until the member has joined as a voter, answers and has
// caught up with the leader: within the table's etcdJoin, retries
// included, the activity ending its own wait a tenth before so its answer
// (what the member showed) reaches the workflow.
func (m *KCPMember) Await(ctx workflow.Context) error {
	summary := fmt.Sprintf("Wait for etcd member %s to join", m.Name)
	retry := &temporal.RetryPolicy{MaximumInterval: 10 * time.Second, MaximumAttempts: 3}
	var got etcd.Member
	if !TableBounds(ctx) {
		wctx := OnSite(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: MemberJoinTimeout + time.Minute, HeartbeatTimeout: time.Minute, Summary: summary, RetryPolicy: retry,
		}), m.queue)
		in := etcd.WaitMemberInput{Spec: m.spec, Name: m.Name, Timeout: MemberJoinTimeout}
		if err := workflow.ExecuteActivity(wctx, ea.WaitMemberHealthy, in).Get(ctx, &got); err != nil {
			return fmt.Errorf("its etcd member %s did not join as a healthy voter: %s", m.Name, temporalerr.Message(err))
		}
		return nil
	}
	l := JoinLimit(m.Limits)
	in := etcd.WaitMemberInput{Spec: m.spec, Name: m.Name, Timeout: l.D - l.D/10}
	err := bound(ctx, l, func(bctx workflow.Context) workflow.Future {
		wctx := OnSite(workflow.WithActivityOptions(bctx, workflow.ActivityOptions{
			ScheduleToCloseTimeout: l.D, StartToCloseTimeout: l.D, HeartbeatTimeout: heartbeatTimeout(l), Summary: summary, RetryPolicy: retry,
		}), m.queue)
		return workflow.ExecuteActivity(wctx, ea.WaitMemberHealthy, in)
	}).Get(ctx, &got)
	if isTimeout(err) {
		return fmt.Errorf("its etcd member %s did not join as a healthy voter within %v", m.Name, l)
	}
	if err != nil {
		return fmt.Errorf("its etcd member %s did not join as a healthy voter: %s", m.Name, temporalerr.Message(err))
	}
	return nil
}
