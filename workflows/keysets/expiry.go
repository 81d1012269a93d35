package keysets

import (
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/workflow"
)

// Removal at expiry (docs/keysets.md#removal-at-expiry), behind ChangeExpiry: a run
// that has applied a keyset does not end, it waits for the expiration —
// one durable timer however far away, so a month's wait is a few events
// of history — and then removes the access: a BMC keyset's run disables
// its accounts on every BMC (the path of a delete) in the same run; the
// nodes run continues as new and applies the set, which the expired
// keyset has left (keyset.ForNodes), so its users are removed from every
// node. The ledger keeps both as outcomes.
//
// The wait ends early on the starter's keyset-changed signal (a create,
// update or delete: the next run reads the ledger, so an update that
// moves the expiration resets the timer) and when a new rackroll build is
// current: a run is pinned to the build it started on, and one that waits
// for weeks would keep that build from draining; nothing of it is in
// flight while it waits, so it moves there (docs/self-upgrade.md).

// waitExpiry waits until until (the operator's expiration), the
// keyset-changed signal, a new current build, or (a BMC keyset's run) a
// recheck of some BMC. It returns nil at the expiration or on a recheck
// (recheck.Len() says which); a continue-as-new otherwise: on the same
// build after a signal (a new pass), onto the new build after a move,
// carrying done, the pass this run finished, so that the next run does
// not apply it all again but waits.
func waitExpiry(ctx workflow.Context, changed, recheck workflow.ReceiveChannel, in api.KeysetInput, until time.Time, done api.KeysetResume) error {
	moved := func() bool { return workflow.GetInfo(ctx).GetTargetWorkerDeploymentVersionChanged() }
	rechecks := func() bool { return recheck != nil && recheck.Len() > 0 }
	woken := func() bool { return changed.Len() > 0 || moved() || rechecks() }
	if d := until.Sub(workflow.Now(ctx)); d > 0 && !woken() {
		if _, err := workflow.AwaitWithTimeout(ctx, d, woken); err != nil {
			return err // cancelled
		}
	}
	switch {
	case moved():
		drain(changed) // the next run reads the ledger anyway
		return goOn(ctx, in, done, true)
	case changed.Len() > 0:
		drain(changed)
		return workflow.NewContinueAsNewError(ctx, KeysetWorkflow, in)
	}
	return nil
}
