package keysets

import (
	"errors"
	"fmt"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// ka names the Kubernetes activities by reference.
var ka *kube.Activities

// applyNodes is KeysetWorkflow run as api.KeysetNodesID (in.Nodes): the
// BMM keysets of the cluster — all of them, since one keyset pod carries
// every rackroll user of a node — applied to every node, a few at a time
// (atOnce, as the BMCs), each wave's outcomes recorded in the ledger under
// every BMM keyset of the set. A node that fails (down, a pod that fails,
// an answer that is not the set) is recorded failed with its reason, and
// the others go on. The set is the ledger's at the run's time, named by
// its report (keyset.Wanted from the fingerprints: no key in this
// history); a newer one (the starter's signal, the activity or the ledger
// finding the set superseded) makes the run end its wave and continue as
// new on it.
func applyNodes(ctx workflow.Context, in api.KeysetInput, changed workflow.ReceiveChannel) (api.KeysetResult, error) {
	led := kernel.LedgerOf(in.Cluster)
	walk, cs, err := firstPage(ctx, led, resumeFrom(in))
	if err != nil {
		return api.KeysetResult{}, err
	}
	now := workflow.Now(ctx)
	want := keyset.Wanted(cs.Keysets, now)
	if in.AfterReinstall && want.Users == 0 {
		// A reinstalled server has no rackroll user, and none is wanted.
		in.Resume = nil
		return api.KeysetResult{Note: "no BMM keyset is active: nothing to establish on the reinstalled servers"}, again(ctx, changed, in)
	}
	from, res := resumed(in, api.KeysetResume{Digest: want.Digest})
	if from != walk.from {
		// The run before applied another set: from the first node.
		if walk, cs, err = firstPage(ctx, led, 0); err != nil {
			return res, err
		}
	}
	waitReinstall := workflow.GetVersion(ctx, changePendingReinstall, workflow.DefaultVersion, 1) == 1
	err = walk.each(ctx, cs, func(page api.ClusterState, at int) error {
		bmms := page.Cluster.BMMs
		for start := 0; start < len(bmms); start += atOnce {
			wave := bmms[start:min(start+atOnce, len(bmms))]
			outs := make([]keyset.Outcome, len(wave))
			stale := make([]bool, len(wave))
			wg := workflow.NewWaitGroup(ctx)
			for i, b := range wave {
				wg.Add(1)
				workflow.Go(ctx, func(gctx workflow.Context) {
					defer wg.Done()
					if waitReinstall && b.Reinstalling() {
						outs[i] = reinstalling(b, workflow.Now(gctx))
						return
					}
					outs[i], stale[i] = applyNode(gctx, page, b, want, now)
				})
			}
			wg.Wait(ctx)
			if superseded(stale) || changed.Len() > 0 {
				drain(changed)
				return workflow.NewContinueAsNewError(ctx, KeysetWorkflow, in)
			}
			if err := recordWave(ctx, led, api.KeysetOutcomesRequest{Nodes: &want, At: now, Outcomes: outs}, changed, in); err != nil {
				return err
			}
			count(&res, outs)
			if next := at + start + len(wave); next < walk.total {
				if stop, move := breakPass(ctx); stop {
					return goOn(ctx, in, api.KeysetResume{From: next, Digest: want.Digest, Counts: res}, move)
				}
			}
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	in.Resume = nil // the pass is done: a later run starts one anew
	// The set changes by itself at the next expiration of a BMM keyset:
	// then the next run applies it without that keyset (expiry.go).
	if workflow.GetVersion(ctx, ChangeExpiry, workflow.DefaultVersion, 1) == 1 {
		if next, ok := keyset.NextExpiry(cs.Keysets, keyset.KindBMM, now); ok {
			done := api.KeysetResume{From: walk.total, Digest: want.Digest, Counts: res}
			if err := waitExpiry(ctx, changed, nil, in, next, done); err != nil {
				return res, err
			}
			return res, workflow.NewContinueAsNewError(ctx, KeysetWorkflow, in)
		}
	}
	return res, again(ctx, changed, in)
}

// applyNode runs ApplyNodeKeys on b's node and says what came of it, and
// whether the activity found the set superseded (the ledger changed).
func applyNode(ctx workflow.Context, cs api.ClusterState, b model.BMM, want keyset.NodeReport, at time.Time) (keyset.Outcome, bool) {
	t := kernel.TargetsFor(cs, b)
	in := kube.NodeKeysInput{Cluster: cs.Cluster.Name, BMM: b.Name, Node: t.Node, Want: want, At: at}
	err := workflow.ExecuteActivity(nodeCtx(ctx, t, fmt.Sprintf("Apply the BMM keysets (%d users) to node %s of %s", want.Users, t.Node, b.Name)),
		ka.ApplyNodeKeys, in).Get(ctx, nil)
	return nodeOutcome(b.Name, err, workflow.Now(ctx))
}

// nodeCtx: the pod on a Ready node ends in seconds, so each attempt has
// the table's `call`, the activity's wait for the pod ending just before
// it, and all attempts what ten calls take (kernel.CallBound). A node that
// does not run the pod within an attempt is not retried (the activity
// says so: a node down stays down for longer than a call); an API error
// or a worker lost is, its heartbeat noticing the loss within a quarter
// of a call.
func nodeCtx(ctx workflow.Context, t kernel.Target, summary string) workflow.Context {
	return kernel.OnSite(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    kernel.CallAttempt(ctx, t.Limits, 1),
		ScheduleToCloseTimeout: kernel.CallBound(t.Limits),
		HeartbeatTimeout:       kernel.CallAttempt(ctx, t.Limits, 4),
		Summary:                summary,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2,
			MaximumInterval: 15 * time.Second, MaximumAttempts: 10},
	}), t.Queue)
}

// nodeOutcome is a node's outcome from its activity's error: applied, or
// failed with the reason; and whether the error was the set superseded.
func nodeOutcome(bmm string, err error, now time.Time) (keyset.Outcome, bool) {
	if err == nil {
		return keyset.Outcome{BMM: bmm, State: keyset.Applied, At: now}, false
	}
	var app *temporal.ApplicationError
	stale := errors.As(err, &app) && app.Type() == kube.ErrKeysetSuperseded
	return keyset.Outcome{BMM: bmm, State: keyset.Failed, Reason: temporalerr.Message(err), At: now}, stale
}

// reinstalling is the outcome of a node whose server is being
// reinstalled: pending, and why; the reinstall's end applies the set.
func reinstalling(b model.BMM, now time.Time) keyset.Outcome {
	return keyset.Outcome{BMM: b.Name, State: keyset.Pending, At: now,
		Reason: "reinstalling (" + b.DetailedStatus + "): the keys follow once its node is back"}
}

func superseded(stale []bool) bool {
	for _, s := range stale {
		if s {
			return true
		}
	}
	return false
}
