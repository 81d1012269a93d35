package kernel

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// la names the ledger activities by reference; only this file (and the
// ledger workflow itself) schedules them.
var la *ledger.Activities

// LedgerOf is how a workflow talks to the ledger (ClusterWorkflow) of its
// cluster: typed calls with one set of options. Ledger calls are short
// Updates of another workflow; they are retried for a while because the
// ledger may be continuing as new.
type LedgerOf string

func (l LedgerOf) opts(ctx workflow.Context, summary string) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		Summary:             summary,
		// A ledger call that fails is usually a passing moment (the ledger
		// continuing as new, a busy history shard): the first retries come
		// soon, then back off to the usual ten seconds; about a minute in
		// all, as before.
		RetryPolicy: ledgerRetry,
	})
}

var ledgerRetry = &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2,
	MaximumInterval: 10 * time.Second, MaximumAttempts: 12}

type localLedgerKey struct{}

// LocalLedger makes the ledger calls made with the context it returns
// local activities of the workflow's own worker, where the ledger's
// activities are always registered (every worker that runs workflows
// does). A ledger call is one Update of another workflow: as a remote
// activity it also costs its caller an activity task and, once it
// answered, a workflow task of its own before the next command —
// two round trips through the server on the caller's serial path for
// every read or record (docs/performance.md). As a local activity it runs
// inside the caller's workflow task, which then goes on with what follows.
// The same Update, the same retries; its result is recorded as a marker.
// The short reads of the site that go through SiteRead are local too
// where the site has no task queue of its own. A family opts in behind
// its own GetVersion (a history's commands change), so recorded histories
// replay as they ran.
func LocalLedger(ctx workflow.Context) workflow.Context {
	return workflow.WithValue(ctx, localLedgerKey{}, true)
}

// localLedger: ctx's ledger calls are local activities (LocalLedger).
func localLedger(ctx workflow.Context) bool {
	on, _ := ctx.Value(localLedgerKey{}).(bool)
	return on
}

// call runs one ledger activity, local or remote as ctx says.
func (l LedgerOf) call(ctx workflow.Context, summary string, activity any, arg any) workflow.Future {
	if localLedger(ctx) {
		return workflow.ExecuteLocalActivity(l.localOpts(ctx, summary), activity, arg)
	}
	return workflow.ExecuteActivity(l.opts(ctx, summary), activity, arg)
}

// localOpts are opts for a local activity: each attempt as long, the
// same retries.
func (l LedgerOf) localOpts(ctx workflow.Context, summary string) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		// All attempts together: unset, the SDK takes StartToClose for it,
		// and a first attempt that times out under load (one Update the
		// ledger answered late) would end the call with no retry at all
		// (make test saw a KCP's retire fail so). Twelve attempts and their
		// backoff fit in it.
		ScheduleToCloseTimeout: 5 * time.Minute,
		StartToCloseTimeout:    30 * time.Second,
		Summary:                summary,
		RetryPolicy:            ledgerRetry,
	})
}

// Read returns the whole ledger.
func (l LedgerOf) Read(ctx workflow.Context) (api.ClusterState, error) {
	var cs api.ClusterState
	err := l.call(ctx, "Read the ledger of "+string(l), la.ReadCluster, string(l)).Get(ctx, &cs)
	return cs, err
}

// ReadBMM returns the ledger with only bmm in it: a server's history stays
// small however large the site.
func (l LedgerOf) ReadBMM(ctx workflow.Context, bmm string) (api.ClusterState, error) {
	var cs api.ClusterState
	err := l.call(ctx, "Read the ledger of "+bmm, la.ReadBMM,
		ledger.ReadBMMInput{Cluster: string(l), BMM: bmm}).Get(ctx, &cs)
	return cs, err
}

// ReadPage returns the BMMs [from, from+n) of the ledger's list with the
// site-wide facts and the keysets without outcomes, and the BMM count: a
// run walking every BMM reads a page at a time, its history bounded
// whatever the site's size.
func (l LedgerOf) ReadPage(ctx workflow.Context, from, n int) (api.PageResult, error) {
	var r api.PageResult
	err := l.call(ctx, fmt.Sprintf("Read BMMs %d–%d of the ledger of %s", from+1, from+n, string(l)), la.ReadPage,
		ledger.ReadPageInput{Cluster: string(l), Page: api.PageRequest{From: from, N: n}}).Get(ctx, &r)
	return r, err
}

// Acquire asks for a lease; a refusal is a non-retryable error carrying the
// ledger's reason.
func (l LedgerOf) Acquire(ctx workflow.Context, req lease.Request) (api.AcquireResult, error) {
	var got api.AcquireResult
	err := l.call(ctx, "Acquire the lease on "+req.BMM, la.AcquireLease,
		ledger.AcquireInput{Cluster: string(l), Request: req}).Get(ctx, &got)
	return got, err
}

// Release drops the leases of holder (on bmm, or all of them when bmm is
// ""). It runs on a disconnected context so that it happens however the
// caller ends, cancellation included; a failed release is left to the
// ledger's sweep.
func (l LedgerOf) Release(ctx workflow.Context, bmm, holder string) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	summary := "Release the lease on " + bmm
	if bmm == "" {
		summary = "Release the leases of " + holder
	}
	_ = l.call(dctx, summary, la.ReleaseLease,
		ledger.ReleaseInput{Cluster: string(l), Request: api.ReleaseRequest{BMM: bmm, Holder: holder}}).Get(dctx, nil)
}

// Record writes facts observed about one BMM.
func (l LedgerOf) Record(ctx workflow.Context, p api.BMMPatch) error {
	return l.call(ctx, patchSummary(p), la.RecordBMM,
		ledger.RecordInput{Cluster: string(l), Patch: p}).Get(ctx, nil)
}

// RecordMany writes facts about several BMMs in one activity.
func (l LedgerOf) RecordMany(ctx workflow.Context, ps []api.BMMPatch) error {
	return l.call(ctx, fmt.Sprintf("Record %d BMMs of %s", len(ps), string(l)), la.RecordBMMs,
		ledger.RecordManyInput{Cluster: string(l), Patches: ps}).Get(ctx, nil)
}

// KeysetOutcomes writes what a keyset's run found on some BMCs; the
// ledger refuses (non-retryable) outcomes of a superseded version.
func (l LedgerOf) KeysetOutcomes(ctx workflow.Context, r api.KeysetOutcomesRequest) error {
	return l.call(ctx, fmt.Sprintf("Record keyset %s on %d BMMs", r.Name, len(r.Outcomes)), la.RecordKeysetOutcomes,
		ledger.KeysetOutcomesInput{Cluster: string(l), Request: r}).Get(ctx, nil)
}

// SetStatus writes the cluster's detailed status.
func (l LedgerOf) SetStatus(ctx workflow.Context, p api.ClusterStatusPatch) error {
	return l.call(ctx, clusterStatusSummary(string(l), p), la.SetClusterStatus,
		ledger.ClusterStatusInput{Cluster: string(l), Status: p}).Get(ctx, nil)
}

// Running tells which of the workflow ids still run.
func (l LedgerOf) Running(ctx workflow.Context, ids []string) (map[string]bool, error) {
	var running map[string]bool
	err := l.call(ctx, fmt.Sprintf("Check %d lease holders", len(ids)), la.HolderStates, ids).Get(ctx, &running)
	return running, err
}
