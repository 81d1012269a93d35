package keysets

import (
	"slices"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// A BMC that may have lost its accounts — a Replace's new BMC, a BMC
// firmware update that reset them — is named to every active BMC keyset's
// run by api.SignalKeysetRecheck (kernel.RecheckBMCAccounts). The run,
// waiting for its keyset's expiration, applies the keyset on that BMC
// alone and records its outcome, then waits again: one BMC checked, not
// the whole site (docs/keysets-bmc.md#a-bmc-that-lost-its-accounts). A
// fresh run takes the signals it starts with as done: its pass applies
// the keyset on every BMC.

// maxRechecks is how many rechecks one run handles while it waits; then
// it continues as new, so its history stays a run's size.
const maxRechecks = 32

// waitRechecking waits for k's expiration (waitExpiry), applying k again
// on each BMC a recheck names meanwhile. nil: the keyset has expired.
func waitRechecking(ctx workflow.Context, changed, recheck workflow.ReceiveChannel, in api.KeysetInput, k keyset.Keyset, done api.KeysetResume) error {
	for n := 0; ; n++ {
		if err := waitExpiry(ctx, changed, recheck, in, k.Expiration, done); err != nil || recheck.Len() == 0 {
			return err
		}
		if n == maxRechecks {
			return workflow.NewContinueAsNewError(ctx, KeysetWorkflow, in)
		}
		bmms := received(recheck)
		if workflow.GetVersion(ctx, changeRecheck, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
			continue
		}
		if err := recheckOn(ctx, in, k, bmms, changed); err != nil {
			return err
		}
	}
}

// recheckOn applies k on the BMC of each of bmms, as a pass does on a
// wave, recording each outcome. A BMM the ledger no longer has is
// skipped; a newer version of k (the ledger changed) continues as new.
func recheckOn(ctx workflow.Context, in api.KeysetInput, k keyset.Keyset, bmms []string, changed workflow.ReceiveChannel) error {
	led := kernel.LedgerOf(in.Cluster)
	for _, name := range bmms {
		cs, err := led.ReadBMM(ctx, name)
		if err != nil || len(cs.Cluster.BMMs) != 1 {
			workflow.GetLogger(ctx).Warn("keyset: a BMC to check again is not in the ledger", "keyset", k.Name, "bmm", name, "error", temporalerr.Message(err))
			continue
		}
		if now, ok := keyset.Find(cs.Keysets, k.Name); !ok || !now.Updated.Equal(k.Updated) {
			return workflow.NewContinueAsNewError(ctx, KeysetWorkflow, in)
		}
		o := applyOn(ctx, cs, cs.Cluster.BMMs[0], k, false)
		if err := recordWave(ctx, led, api.KeysetOutcomesRequest{Name: k.Name, Version: k.Updated, Outcomes: []keyset.Outcome{o}}, changed, in); err != nil {
			return err
		}
	}
	return nil
}

// received is the BMMs named by the recheck signals received so far, each
// once, in the order first named.
func received(recheck workflow.ReceiveChannel) []string {
	var out []string
	var bmm string
	for recheck.ReceiveAsync(&bmm) {
		if bmm != "" && !slices.Contains(out, bmm) {
			out = append(out, bmm)
		}
	}
	return out
}
