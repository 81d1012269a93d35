// Package sites holds the fleet run's activities (docs/fleet.md): start
// each site's own runtime upgrade, and read each site's verdict from what
// the site shows — its upgrade run, its ledger and whether its workers
// poll. They run on the central worker, through the Temporal client only:
// a fleet never reaches a site's BMCs or Kubernetes API itself.
package sites

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/fleet"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// Activities reads and starts sites through Client.
type Activities struct {
	Client client.Client
	// Namespace is the client's namespace (for DescribeTaskQueue); ""
	// is "default".
	Namespace string
}

// StartInput starts the sites of a wave.
type StartInput struct {
	Fleet   string                `json:"fleet"`
	Sites   []string              `json:"sites"`
	Request api.FleetStartRequest `json:"request"`
}

// Started is one site's start: its verdict (running, current, or failed
// when the start was refused) and the run the fleet follows.
type Started struct {
	fleet.Reading
	RunID string `json:"runId,omitempty"`
}

// atOnce bounds the sites read or started at once: each is a few calls
// to the Temporal server, and a fleet is at most fleet.MaxSites.
const atOnce = 16

// StartSites starts each site's runtime upgrade as `starter upgrade start`
// does, unless the site is already at the target. It is idempotent: a
// site whose upgrade to the same target already runs (this activity
// retried, or the fleet resumed) is followed, not started twice; one
// running to another version is refused.
func (a *Activities) StartSites(ctx context.Context, in StartInput) ([]Started, error) {
	out := make([]Started, len(in.Sites))
	each(len(in.Sites), func(i int) { out[i] = a.start(ctx, in, in.Sites[i]) })
	return out, ctx.Err()
}

func (a *Activities) start(ctx context.Context, in StartInput, cluster string) Started {
	refused := func(format string, args ...any) Started {
		return Started{Reading: fleet.Reading{Cluster: cluster, Verdict: fleet.Failed, Detail: "not started: " + fmt.Sprintf(format, args...)}}
	}
	st, err := a.header(ctx, cluster)
	if err != nil {
		return refused("its ledger did not answer: %v", err)
	}
	target := in.Request.TargetVersion
	if st.UpgradeTarget == "" && st.Cluster.RuntimeVersion == target {
		return Started{Reading: fleet.Reading{Cluster: cluster, Verdict: fleet.Current, Detail: "already at " + target}}
	}
	if st.UpgradeTarget != "" && st.UpgradeTarget != target {
		return refused("an upgrade to %s is in progress there", st.UpgradeTarget)
	}
	up := api.UpgradeInput{Cluster: cluster, TargetVersion: target, UpdateStrategy: in.Request.UpdateStrategy,
		DrainTimeout: in.Request.DrainTimeout, VMShutdownTimeout: in.Request.VMShutdownTimeout}
	run, err := a.Client.ExecuteWorkflow(ctx, UpgradeStartOptions(cluster, target, "fleet "+in.Fleet), api.RuntimeUpgradeWorkflowName, up)
	if err != nil {
		return refused("%v", err)
	}
	return Started{Reading: fleet.Reading{Cluster: cluster, Verdict: fleet.Running}, RunID: run.GetRunID()}
}

// UpgradeStartOptions are the fleet's options for a site's runtime
// upgrade: as `starter upgrade start`'s, but a start while one runs joins
// it (its target was checked on the ledger first) rather than failing, so
// that a retried or resumed start never starts a site twice; a failed one
// may be run again (it resumes).
func UpgradeStartOptions(cluster, version, by string) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{
		ID:                       api.UpgradeID(cluster),
		TaskQueue:                api.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			temporal.NewSearchAttributeKeyKeyword(api.SearchAttrCluster).ValueSet(cluster),
			temporal.NewSearchAttributeKeyKeyword(api.SearchAttrOperation).ValueSet("runtime-upgrade"),
			temporal.NewSearchAttributeKeyKeyword(api.SearchAttrPhase).ValueSet(api.PhasePreflight)),
		StaticSummary: fmt.Sprintf("Runtime upgrade of %s to %s (%s)", cluster, version, by),
	}
}

// header is the ledger without its BMMs: status, version, upgrade target
// and task queue.
func (a *Activities) header(ctx context.Context, cluster string) (api.ClusterState, error) {
	v, err := a.Client.QueryWorkflow(ctx, api.ClusterID(cluster), "", api.QueryPage, api.PageRequest{})
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return api.ClusterState{}, fmt.Errorf("%s is not a registered cluster", cluster)
		}
		return api.ClusterState{}, err
	}
	var p api.PageResult
	if err := v.Get(&p); err != nil {
		return api.ClusterState{}, err
	}
	return p.State, nil
}

// each runs f(0..n-1), atOnce at a time.
func each(n int, f func(i int)) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, atOnce)
	for i := range n {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			f(i)
		}()
	}
	wg.Wait()
}

// heartbeat keeps a long read alive (the run's heartbeat timeout).
func heartbeat(ctx context.Context) {
	if activity.IsActivity(ctx) {
		activity.RecordHeartbeat(ctx)
	}
}

// siteQueue is where the site's activities go: its own queue, or the
// central one.
func siteQueue(st api.ClusterState) string {
	if st.SiteTaskQueue != "" {
		return st.SiteTaskQueue
	}
	return api.TaskQueue
}

// CancelSites asks each site's upgrade to cancel (cancel-update, as
// `starter upgrade cancel` does): it stops at its next safe point. It
// returns the sites that refused, each with why.
func (a *Activities) CancelSites(ctx context.Context, clusters []string) ([]string, error) {
	return a.tell(ctx, clusters, api.UpdateCancel).Refused, ctx.Err()
}
