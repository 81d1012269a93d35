package keysets

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// ba names the BMC activities by reference.
var ba *bmc.Activities

// atOnce is how many BMCs a keyset's run works on at once. Each account
// is one Redfish session on its BMC, and the site worker's activity slots
// are shared with upgrades and remediation: a few at a time keeps both
// free, and a site of 2,000 BMCs is still done in minutes, not hours.
const atOnce = 4

// KeysetWorkflow (id keyset:<cluster>:<name>, signalled with start by the
// starter once the ledger has written the keyset) makes every account of
// a BMC keyset exist, enabled, with the keyset's role on every BMC of the
// cluster — or, once the keyset is deleted, disabled — a few BMCs at a
// time, and records each BMM's outcome in the ledger after each wave. A
// BMC that refuses (no room for an account, a Secret missing, an effect
// not read back) is recorded failed with its reason and the others go on.
//
// Its input is the keyset's name only: it applies the ledger's version.
// When the ledger has a newer one (the starter's signal, or the ledger
// refusing a wave's outcomes as superseded), the run ends the wave it is
// in and continues as new on it: one run per keyset at a time, so no two
// runs ever change the same account at once.
//
// Run as api.KeysetNodesID with in.Nodes, it applies the cluster's BMM
// keysets to every node instead (applyNodes).
func KeysetWorkflow(ctx workflow.Context, in api.KeysetInput) (api.KeysetResult, error) {
	changed := workflow.GetSignalChannel(ctx, api.SignalKeysetChanged)
	drain(changed)
	if in.Nodes && workflow.GetVersion(ctx, ChangeNodeKeys, workflow.DefaultVersion, 1) == 1 {
		return applyNodes(ctx, in, changed)
	}
	led := kernel.LedgerOf(in.Cluster)
	cs, err := led.Read(ctx)
	if err != nil {
		return api.KeysetResult{}, err
	}
	k, deleted, note := target(cs, in, workflow.Now(ctx))
	if note != "" {
		workflow.GetLogger(ctx).Info("keyset: nothing to do", "keyset", in.Name, "why", note)
		return api.KeysetResult{Note: note}, again(ctx, changed, in)
	}
	var res api.KeysetResult
	bmms := cs.Cluster.BMMs
	for start := 0; start < len(bmms); start += atOnce {
		wave := bmms[start:min(start+atOnce, len(bmms))]
		outs := make([]keyset.Outcome, len(wave))
		wg := workflow.NewWaitGroup(ctx)
		for i, b := range wave {
			wg.Add(1)
			workflow.Go(ctx, func(gctx workflow.Context) {
				defer wg.Done()
				outs[i] = applyOn(gctx, cs, b, k, deleted)
			})
		}
		wg.Wait(ctx)
		err := led.KeysetOutcomes(ctx, api.KeysetOutcomesRequest{Name: k.Name, Deleted: deleted, Version: k.Updated, Outcomes: outs})
		var app *temporal.ApplicationError
		if (errors.As(err, &app) && app.Type() == ledger.ErrLeaseRejected) || changed.Len() > 0 {
			// A newer create, update or delete: apply that instead.
			drain(changed)
			return res, workflow.NewContinueAsNewError(ctx, KeysetWorkflow, in)
		}
		if err != nil {
			return res, err
		}
		count(&res, outs)
	}
	return res, again(ctx, changed, in)
}

// again continues as new when the ledger was changed while the run
// worked (a signal it has not acted on), nil otherwise. A signal that
// comes in while the run completes makes the server refuse the
// completion, so none is lost: the run sees it here on its next task.
func again(ctx workflow.Context, changed workflow.ReceiveChannel, in api.KeysetInput) error {
	if changed.Len() == 0 {
		return nil
	}
	drain(changed)
	return workflow.NewContinueAsNewError(ctx, KeysetWorkflow, in)
}

// drain takes the signals received so far: the ledger read after it is
// at least as new as each of them.
func drain(ch workflow.ReceiveChannel) {
	for ch.ReceiveAsync(nil) {
	}
}

// target is the keyset in.Name of the ledger cs: a live one to apply, or
// a deleted one (deleted true) to disable; or why there is nothing to do.
func target(cs api.ClusterState, in api.KeysetInput, now time.Time) (keyset.Keyset, bool, string) {
	if k, ok := keyset.Find(cs.Keysets, in.Name); ok {
		switch {
		case k.Kind != keyset.KindBMC:
			return k, false, fmt.Sprintf("keyset %s is a %s keyset: the BMM keysets are applied to the nodes all at once, by the run %s", k.Name, k.Kind, api.KeysetNodesID(in.Cluster))
		case k.Expired(now):
			return k, false, fmt.Sprintf("keyset %s expired at %s: not applied (removal at expiry is not built yet)", k.Name, k.Expiration.UTC().Format(time.RFC3339))
		}
		return k, false, ""
	}
	if k, ok := keyset.Find(cs.RemovedKeysets, in.Name); ok {
		return k, true, ""
	}
	return keyset.Keyset{}, false, fmt.Sprintf("cluster %s has no keyset %s, nor a deleted BMC keyset of that name", in.Cluster, in.Name)
}

// done is one account's activity, as the outcome needs it.
type done struct {
	account string
	res     bmc.AccountResult
	err     string
}

// applyOn runs EnsureAccount for each of k's accounts on b's BMC, one
// after the other (one BMC, one session at a time), and says what came of
// it. A failed account does not stop the others.
func applyOn(ctx workflow.Context, cs api.ClusterState, b model.BMM, k keyset.Keyset, deleted bool) keyset.Outcome {
	t := kernel.TargetsFor(cs, b)
	var all []done
	for _, a := range k.Accounts {
		in := bmc.AccountInput{Endpoint: t.Endpoint, Keyset: k.Name, UserName: a.Name, Role: k.Role, Enable: !deleted}
		verb := "Disable"
		if !deleted {
			in.PasswordSecret, verb = a.PasswordSecretRef, "Apply"
		}
		d := done{account: a.Name}
		err := workflow.ExecuteActivity(accountCtx(ctx, t, fmt.Sprintf("%s account %s of keyset %s on %s", verb, a.Name, k.Name, b.Name)),
			ba.EnsureAccount, in).Get(ctx, &d.res)
		if err != nil {
			d.err = temporalerr.Message(err)
		}
		all = append(all, d)
	}
	return outcome(b.Name, k.Role, deleted, all, workflow.Now(ctx))
}

// accountCtx: EnsureAccount is a few Redfish requests in one session
// that answer at once, so each attempt has the table's `call` and all its
// attempts what a call may take with its retries (kernel.CallBound). A
// worker-side error (a BMC busy, a session refused, a worker lost) is
// retried within it; a refusal (BMCAccountLimit, a bad input, a missing
// Secret) is not: the activity makes it non-retryable.
func accountCtx(ctx workflow.Context, t kernel.Target, summary string) workflow.Context {
	return kernel.OnSite(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    kernel.CallAttempt(ctx, t.Limits, 1),
		ScheduleToCloseTimeout: kernel.CallBound(t.Limits),
		Summary:                summary,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2,
			MaximumInterval: 15 * time.Second, MaximumAttempts: 10},
	}), t.Queue)
}

// outcome is a BMM's outcome from its accounts' activities: applied (or
// disabled) when every account is, with the role read back; failed with
// each failed account's reason otherwise.
func outcome(bmm string, role keyset.Role, deleted bool, all []done, now time.Time) keyset.Outcome {
	o := keyset.Outcome{BMM: bmm, State: keyset.Applied, Role: role, At: now}
	if deleted {
		o.State, o.Role = keyset.Disabled, ""
	}
	var why []string
	for _, d := range all {
		switch {
		case d.err != "":
			why = append(why, "account "+d.account+": "+d.err)
		case !deleted && d.res.Role != "":
			o.Role = keyset.Role(d.res.Role)
		}
	}
	if len(why) > 0 {
		o.State, o.Role, o.Reason = keyset.Failed, "", strings.Join(why, "; ")
	}
	return o
}

// count adds a wave's outcomes to the run's result.
func count(res *api.KeysetResult, outs []keyset.Outcome) {
	for _, o := range outs {
		switch o.State {
		case keyset.Applied:
			res.Applied++
		case keyset.Disabled:
			res.Disabled++
		case keyset.Failed:
			res.Failed++
		}
	}
}
