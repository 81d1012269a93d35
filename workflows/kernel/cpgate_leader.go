package kernel

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/activities/etcd"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/cpgate"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// moveLeader moves etcd leadership off the target as d says (Cluster API's
// ForwardEtcdLeadership: the leader is never the member taken down) and
// reports whether it asked etcd to. The activity picks the healthy voter
// most caught up, which may differ from d.MoveLeaderTo; the gate is asked
// again afterwards either way.
func moveLeader(ctx workflow.Context, cs api.ClusterState, d cpgate.Decision) (bool, error) {
	if cs.ControlPlane == nil || cs.ControlPlane.Etcd == nil {
		return false, nil
	}
	away := d.Server
	if b, ok := cs.Cluster.BMM(d.Server); ok && b.NodeName != "" {
		away = b.NodeName
	}
	mctx := OnSite(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: CallAttempt(ctx, cs.Limits(), 2), Summary: fmt.Sprintf("Move etcd leadership away from %s", away),
		RetryPolicy: &temporal.RetryPolicy{MaximumInterval: 5 * time.Second, MaximumAttempts: 3},
	}), cs.SiteTaskQueue)
	var leader string
	err := workflow.ExecuteActivity(mctx, ea.MoveLeader, etcd.MoveLeaderInput{Spec: *cs.ControlPlane.Etcd, Away: away}).Get(ctx, &leader)
	return err == nil, err
}
