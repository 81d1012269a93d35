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
// Once applied, the run waits for the keyset's expiration and then
// disables its accounts on every BMC, as a delete does (expiry.go); an
// expired keyset's run disables them at once.
//
// Run as api.KeysetNodesID with in.Nodes, it applies the cluster's BMM
// keysets to every node instead (applyNodes).
func KeysetWorkflow(ctx workflow.Context, in api.KeysetInput) (api.KeysetResult, error) {
	// A run waiting for its expiry has no workflow task to see a new build
	// on: `self-upgrade wake` signals it (waitExpiry moves then).
	kernel.TakeWakes(ctx)
	changed := workflow.GetSignalChannel(ctx, api.SignalKeysetChanged)
	drain(changed)
	// A fresh run's pass applies the keyset on every BMC: the BMCs it was
	// started to check again are among them (recheck.go).
	recheck := workflow.GetSignalChannel(ctx, api.SignalKeysetRecheck)
	drain(recheck)
	if in.Nodes && workflow.GetVersion(ctx, ChangeNodeKeys, workflow.DefaultVersion, 1) == 1 {
		return applyNodes(ctx, in, changed)
	}
	// Since ChangeExpiry a run removes the access at the expiration: it
	// waits for it once applied, and disables an expired keyset's
	// accounts (expiry.go). A run recorded before ends once applied.
	expiry := workflow.GetVersion(ctx, ChangeExpiry, workflow.DefaultVersion, 1) == 1
	res, j, err := pass(ctx, in, changed, expiry)
	if err != nil || j.note != "" || !expiry || j.disable {
		return res, err
	}
	in.Resume = nil // the pass is done: a later run starts one anew
	done := api.KeysetResume{From: j.total, Version: j.k.Updated, Counts: res}
	if err := waitRechecking(ctx, changed, recheck, in, j.k, done); err != nil {
		return res, err
	}
	// Expired, and the ledger not changed meanwhile: the same run reads it
	// again and disables the accounts (one wait, two passes: the history
	// stays a run's size).
	more, j, err := pass(ctx, in, changed, expiry)
	res.Applied, res.Disabled, res.Failed, res.Note = res.Applied+more.Applied, more.Disabled, res.Failed+more.Failed, more.Note
	if err == nil && j.note == "" && !j.disable {
		// Updated meanwhile without a signal (a starter that died before
		// it): applied again; the next run waits for the new expiration.
		return res, workflow.NewContinueAsNewError(ctx, KeysetWorkflow, in)
	}
	return res, err
}

// pass reads the ledger and makes the keyset in.Name true on every BMC —
// applied, or disabled when deleted or (expiry) expired — a wave at a
// time, recording each wave's outcomes; j is what it did. A newer version
// (signal, or a wave refused as superseded) continues as new; so does a
// long pass, between two waves, the next run going on from there
// (in.Resume).
func pass(ctx workflow.Context, in api.KeysetInput, changed workflow.ReceiveChannel, expiry bool) (api.KeysetResult, job, error) {
	led := kernel.LedgerOf(in.Cluster)
	walk, cs, err := firstPage(ctx, led, resumeFrom(in))
	if err != nil {
		return api.KeysetResult{}, job{}, err
	}
	j := target(cs, in, workflow.Now(ctx), expiry)
	if j.note != "" {
		workflow.GetLogger(ctx).Info("keyset: nothing to do", "keyset", in.Name, "why", j.note)
		return api.KeysetResult{Note: j.note}, j, again(ctx, changed, in)
	}
	k := j.k
	from, res := resumed(in, api.KeysetResume{Version: k.Updated, Removing: j.disable})
	if from != walk.from {
		// The run before applied another version: from the first BMC.
		if walk, cs, err = firstPage(ctx, led, 0); err != nil {
			return res, j, err
		}
	}
	err = walk.each(ctx, cs, func(page api.ClusterState, at int) error {
		bmms := page.Cluster.BMMs
		for start := 0; start < len(bmms); start += atOnce {
			wave := bmms[start:min(start+atOnce, len(bmms))]
			outs := make([]keyset.Outcome, len(wave))
			wg := workflow.NewWaitGroup(ctx)
			for i, b := range wave {
				wg.Add(1)
				workflow.Go(ctx, func(gctx workflow.Context) {
					defer wg.Done()
					outs[i] = applyOn(gctx, page, b, k, j.disable)
				})
			}
			wg.Wait(ctx)
			if err := recordWave(ctx, led, api.KeysetOutcomesRequest{Name: k.Name, Deleted: j.deleted, Version: k.Updated, Outcomes: outs}, changed, in); err != nil {
				return err
			}
			count(&res, outs)
			if next := at + start + len(wave); next < walk.total {
				if stop, move := breakPass(ctx); stop {
					return goOn(ctx, in, api.KeysetResume{From: next, Version: k.Updated, Removing: j.disable, Counts: res}, move)
				}
			}
		}
		return nil
	})
	if err != nil {
		return res, j, err
	}
	j.total = walk.total
	if j.expired {
		res.Note = fmt.Sprintf("keyset %s expired at %s: its accounts taken away (removed, or disabled where a BMC cannot remove one) on %d of %d BMCs", k.Name,
			k.Expiration.UTC().Format(time.RFC3339), res.Disabled, walk.total)
	}
	if expiry && !j.disable {
		// The run waits for the expiration next; a signal is seen there.
		return res, j, nil
	}
	in.Resume = nil
	return res, j, again(ctx, changed, in)
}

// recordWave records a wave's outcomes. A refusal as superseded (a newer
// create, update or delete) or a signal meanwhile continues as new, to
// apply that instead.
func recordWave(ctx workflow.Context, led kernel.LedgerOf, r api.KeysetOutcomesRequest, changed workflow.ReceiveChannel, in api.KeysetInput) error {
	err := led.KeysetOutcomes(ctx, r)
	var app *temporal.ApplicationError
	if (errors.As(err, &app) && app.Type() == ledger.ErrLeaseRejected) || changed.Len() > 0 {
		drain(changed)
		return workflow.NewContinueAsNewError(ctx, KeysetWorkflow, in)
	}
	return err
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

// job is what a run does with its keyset: apply k, or disable its
// accounts (disable) because it was deleted (kept aside by the ledger:
// deleted) or has expired; or nothing, and note says why.
type job struct {
	k                         keyset.Keyset
	disable, deleted, expired bool
	note                      string
	total                     int // the BMMs the pass walked to
}

// target is the job for the keyset in.Name of the ledger cs at now.
// Without expiry (a run recorded before ChangeExpiry) an expired keyset
// is left as it is.
func target(cs api.ClusterState, in api.KeysetInput, now time.Time, expiry bool) job {
	if k, ok := keyset.Find(cs.Keysets, in.Name); ok {
		switch {
		case k.Kind != keyset.KindBMC:
			return job{k: k, note: fmt.Sprintf("keyset %s is a %s keyset: the BMM keysets are applied to the nodes all at once, by the run %s", k.Name, k.Kind, api.KeysetNodesID(in.Cluster))}
		case k.Expired(now) && expiry:
			return job{k: k, disable: true, expired: true}
		case k.Expired(now):
			return job{k: k, note: fmt.Sprintf("keyset %s expired at %s: not applied (removal at expiry is not built yet)", k.Name, k.Expiration.UTC().Format(time.RFC3339))}
		}
		return job{k: k}
	}
	if k, ok := keyset.Find(cs.RemovedKeysets, in.Name); ok {
		return job{k: k, disable: true, deleted: true}
	}
	return job{note: fmt.Sprintf("cluster %s has no keyset %s, nor a deleted BMC keyset of that name", in.Cluster, in.Name)}
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
func applyOn(ctx workflow.Context, cs api.ClusterState, b model.BMM, k keyset.Keyset, disable bool) keyset.Outcome {
	t := kernel.TargetsFor(cs, b)
	var all []done
	for _, a := range k.Accounts {
		in := bmc.AccountInput{Endpoint: t.Endpoint, Keyset: k.Name, UserName: a.Name, Role: k.Role, Enable: !disable}
		verb := "Disable"
		if !disable {
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
	return outcome(b.Name, k.Role, disable, all, workflow.Now(ctx))
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

// outcome is a BMM's outcome from its accounts' activities: applied when
// every account is, with the role read back; once the keyset is deleted
// or expired (disable), removed when every account is gone (deleted, its
// slot emptied, or absent), disabled when a BMC could only disable one;
// failed with each failed account's reason otherwise.
func outcome(bmm string, role keyset.Role, disable bool, all []done, now time.Time) keyset.Outcome {
	o := keyset.Outcome{BMM: bmm, State: keyset.Applied, Role: role, At: now}
	if disable {
		o.State, o.Role = keyset.Removed, ""
	}
	var why []string
	for _, d := range all {
		switch {
		case d.err != "":
			why = append(why, "account "+d.account+": "+d.err)
		case !disable && d.res.Role != "":
			o.Role = keyset.Role(d.res.Role)
		case disable && !gone(d.res.Action):
			o.State = keyset.Disabled
		}
	}
	if len(why) > 0 {
		o.State, o.Role, o.Reason = keyset.Failed, "", strings.Join(why, "; ")
	}
	return o
}

// gone: the account no longer exists on the BMC.
func gone(action string) bool {
	return action == bmc.AccountDeleted || action == bmc.AccountFreed || action == bmc.AccountAbsent
}

// count adds a wave's outcomes to the run's result (Disabled: the
// accounts taken away, removed or disabled).
func count(res *api.KeysetResult, outs []keyset.Outcome) {
	for _, o := range outs {
		switch o.State {
		case keyset.Applied:
			res.Applied++
		case keyset.Disabled, keyset.Removed:
			res.Disabled++
		case keyset.Failed:
			res.Failed++
		}
	}
}
