package workflows

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

// MemberJoinTimeout bounds the wait for a new KCP's etcd member to join as
// a healthy, caught-up voter.
const MemberJoinTimeout = 10 * time.Minute

// awaitMember waits, where the site exposes etcd, until bmm's member has
// joined as a voter, answers and has caught up, before the next KCP step:
// until then the member set has not grown, and the step after a swap (the
// retire of the KCP it replaces) would leave the control plane short.
// Where the site has no etcd section there is nothing to observe.
func (u *upgrade) awaitMember(ctx workflow.Context, bmm string) error {
	if workflow.GetVersion(ctx, "upgrade-waits-member-join", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	cs, name, err := u.etcdMember(ctx, bmm)
	if err != nil || name == "" {
		return err
	}
	wctx := onSite(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: MemberJoinTimeout + time.Minute, HeartbeatTimeout: time.Minute,
		Summary:     fmt.Sprintf("Wait for etcd member %s to join", name),
		RetryPolicy: &temporal.RetryPolicy{MaximumInterval: 10 * time.Second, MaximumAttempts: 3},
	}), cs.SiteTaskQueue)
	var m etcd.Member
	if err := workflow.ExecuteActivity(wctx, ea.WaitMemberHealthy, etcd.WaitMemberInput{Spec: *cs.ControlPlane.Etcd, Name: name, Timeout: MemberJoinTimeout}).Get(ctx, &m); err != nil {
		return fmt.Errorf("its etcd member %s did not join as a healthy voter: %s", name, temporalerr.Message(err))
	}
	return nil
}

// removeMember takes a retiring KCP's member out of etcd before it leaves
// the control plane (Cluster API's RemoveEtcdMemberForMachine), so the
// member set stays the active KCPs: a retired spare keeping its member
// would break quorum the day its machine is reimaged or powered off. The
// set may shrink to the table's active count — one on a two-rack site.
func (u *upgrade) removeMember(ctx workflow.Context, bmm string) error {
	if workflow.GetVersion(ctx, "upgrade-retire-removes-member", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	cs, name, err := u.etcdMember(ctx, bmm)
	if err != nil || name == "" {
		return err
	}
	racks := map[string]bool{}
	for _, b := range cs.Cluster.BMMs {
		racks[b.Rack] = true
	}
	active, _ := model.ControlPlaneSize(len(racks))
	rctx := onSite(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute, Summary: fmt.Sprintf("Remove etcd member %s", name),
		RetryPolicy: &temporal.RetryPolicy{MaximumInterval: 10 * time.Second, MaximumAttempts: 5},
	}), cs.SiteTaskQueue)
	in := etcd.MemberInput{Spec: *cs.ControlPlane.Etcd, Name: name, KeepAtLeast: min(active, etcdquorum.MinMembers)}
	if err := workflow.ExecuteActivity(rctx, ea.RemoveMember, in).Get(ctx, nil); err != nil {
		return fmt.Errorf("remove its etcd member %s: %s", name, temporalerr.Message(err))
	}
	return nil
}

// etcdMember reads the ledger and names bmm's etcd member (its node's
// name); "" when the site has no etcd section.
func (u *upgrade) etcdMember(ctx workflow.Context, bmm string) (api.ClusterState, string, error) {
	cs, err := ledgerOf(u.in.Cluster).read(ctx)
	if err != nil || cs.ControlPlane == nil || cs.ControlPlane.Etcd == nil {
		return cs, "", err
	}
	if b, ok := cs.Cluster.BMM(bmm); ok && b.NodeName != "" {
		return cs, b.NodeName, nil
	}
	return cs, bmm, nil
}
