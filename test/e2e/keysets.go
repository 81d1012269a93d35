package e2e

import (
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
)

// KeysetOutcomes waits until the ledger has an outcome of keyset name's
// current version (live, or deleted and kept aside) on every BMM, and
// counts them as a run's result would. A live keyset's run does not end
// once applied — it waits for the keyset's expiration
// (docs/keysets-expiry.md) — so a test reads the ledger's
// outcomes rather than the run's result.
func (e *Env) KeysetOutcomes(within time.Duration, name string) api.KeysetResult {
	e.T.Helper()
	var res api.KeysetResult
	e.Eventually(within, "an outcome of keyset "+name+" on every BMM", func() bool {
		st := e.State()
		k, ok := keyset.Find(st.Keysets, name)
		if !ok {
			k, ok = keyset.Find(st.RemovedKeysets, name)
		}
		if !ok || len(k.Outcomes) < len(st.Cluster.BMMs) {
			return false
		}
		res = api.KeysetResult{}
		for _, o := range k.Outcomes {
			switch o.State {
			case keyset.Applied:
				res.Applied++
			case keyset.Disabled, keyset.Removed:
				res.Disabled++
			case keyset.Failed:
				res.Failed++
			}
		}
		return true
	})
	return res
}
