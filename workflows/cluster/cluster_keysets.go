package cluster

import (
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"go.temporal.io/sdk/workflow"
)

// The ledger's keysets (docs/keysets.md): create, replace and delete are
// Updates whose validators apply internal/keyset's rules at the
// workflow's time, so a refusal is synchronous, names every problem and
// leaves no trace; query keysets lists them without key material. The
// handlers change state only, no command: recorded histories replay
// unchanged, and a ledger that has never seen a keyset shows none.
func (l *clusterLedger) keysetHandlers(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, api.QueryKeysets, func() ([]keyset.Keyset, error) {
		return l.st.Redacted().Keysets, nil
	}); err != nil {
		return err
	}
	for _, u := range []struct {
		name  string
		check func([]keyset.Keyset, keyset.Spec, time.Time) (keyset.Spec, error)
	}{
		{api.UpdateKeysetCreate, keyset.CheckCreate},
		{api.UpdateKeysetUpdate, keyset.CheckUpdate},
	} {
		if err := workflow.SetUpdateHandlerWithOptions(ctx, u.name, func(ctx workflow.Context, r api.KeysetRequest) (keyset.Keyset, error) {
			// Checked again for the fingerprints it derives; at the
			// validator's time, so it passes as the validator did.
			s, err := u.check(l.st.Keysets, r.Keyset, workflow.Now(ctx))
			if err != nil {
				return keyset.Keyset{}, err
			}
			l.st.Keysets = keyset.Put(l.st.Keysets, s, r.By, workflow.Now(ctx))
			l.touch(ctx)
			k, _ := keyset.Find(l.st.Keysets, s.Name)
			return k.Redacted(), nil
		}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, r api.KeysetRequest) error {
			_, err := u.check(l.st.Keysets, r.Keyset, workflow.Now(ctx))
			return err
		}}); err != nil {
			return err
		}
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, api.UpdateKeysetDelete, func(ctx workflow.Context, r api.KeysetDeleteRequest) (keyset.Keyset, error) {
		k, _ := keyset.Find(l.st.Keysets, r.Name)
		l.st.Keysets = keyset.Remove(l.st.Keysets, r.Name)
		l.touch(ctx)
		return k.Redacted(), nil
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, r api.KeysetDeleteRequest) error {
		return keyset.CheckDelete(l.st.Keysets, r.Name)
	}})
}
