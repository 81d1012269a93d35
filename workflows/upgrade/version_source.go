package upgrade

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// versionSourceLimit bounds the one List of nodes the preflight makes,
// retries included: the table's call (a minute before the table bounded
// it, the same default).
func versionSourceLimit(in api.ServerInput) time.Duration {
	if in.Limits == nil {
		return time.Minute
	}
	return in.Limits.OrDefaults().Call.Std()
}

// checkVersionSource is the version-source preflight
// (docs/production.md#image-contract): before any server is touched, the
// site's nodes are read through the site's version source, and the upgrade
// is refused when that source could not see a server come back on the
// target (model.NodeVersionSource.Unseen) — rather than after the first
// reimage has waited out its whole limit. It returns the refusal, or "".
func (u *upgrade) checkVersionSource(ctx workflow.Context, cs api.ClusterState) string {
	var nodes []string
	recorded := map[string]string{}
	for _, b := range cs.Cluster.BMMs {
		if b.DetailedStatus == model.BMMProvisioned && b.NodeName != "" {
			nodes = append(nodes, b.NodeName)
			recorded[b.NodeName] = b.RuntimeVersion
		}
	}
	opts := workflow.ActivityOptions{
		// Retries included, the preflight ends within its limit; an
		// attempt lost with its worker (a kill mid-List) is given up after
		// a third of it and retried, not waited out to the end.
		StartToCloseTimeout:    versionSourceLimit(u.server) / 3,
		ScheduleToCloseTimeout: versionSourceLimit(u.server),
		Summary:                fmt.Sprintf("Read %d nodes' versions through %s", len(nodes), cs.NodeVersion),
		RetryPolicy:            &temporal.RetryPolicy{MaximumInterval: 10 * time.Second, MaximumAttempts: 3},
	}
	var ns []kube.NodeStatus
	// One List: a local activity where the run makes local calls (kernel.SiteRead).
	if err := kernel.SiteRead(ctx, cs.SiteTaskQueue, opts, ka.ObserveNodes, nodes, cs.NodeVersion).Get(ctx, &ns); err != nil {
		return "cannot read the nodes' versions through " + cs.NodeVersion.String() + ": " + temporalerr.Message(err) + "; no server was touched"
	}
	var shown []model.NodeShown
	for _, n := range ns {
		if n.Exists {
			shown = append(shown, model.NodeShown{Node: n.Node, Shows: n.RuntimeVersion, Recorded: recorded[n.Node],
				OSImage: n.OSImage, Labelled: n.Labels[model.LabelRuntimeVersion]})
		}
	}
	if why := cs.NodeVersion.Unseen(shown, u.in.TargetVersion); why != "" {
		return why + "; no server was touched"
	}
	return ""
}
