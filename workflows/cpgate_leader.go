package workflows

import (
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/cpgate"
	"go.temporal.io/sdk/workflow"
)

// moveLeader moves etcd leadership off the target as d says, and reports
// whether it did. Not wired yet: the etcd MoveLeader activity comes with
// the lab's multi-member etcd; until then the disruption goes ahead with
// leadership where it is (etcd elects a new leader; quorum is kept, which
// the gate has checked).
func moveLeader(ctx workflow.Context, cs api.ClusterState, d cpgate.Decision) (bool, error) {
	workflow.GetLogger(ctx).Info("etcd leadership not moved (MoveLeader not wired)", "bmm", d.Server, "to", d.MoveLeaderTo)
	return false, nil
}
