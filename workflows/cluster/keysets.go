package cluster

import (
	"fmt"
	"slices"
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
		// Without outcomes: one per BMM per keyset is megabytes at a
		// site's limits; `keyset show` reads them (packed) from the state.
		return keyset.WithoutOutcomes(l.st.Redacted().Keysets), nil
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
			// A keyset created again is no longer a removed one: its run
			// applies it, and the record of its disabling is over.
			l.st.RemovedKeysets = keyset.Remove(l.st.RemovedKeysets, s.Name)
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
	if err := workflow.SetUpdateHandlerWithOptions(ctx, api.UpdateKeysetDelete, func(ctx workflow.Context, r api.KeysetDeleteRequest) (keyset.Keyset, error) {
		k, _ := keyset.Find(l.st.Keysets, r.Name)
		// A deleted BMC keyset is kept aside, so that its run can record
		// where its accounts were disabled.
		l.st.Keysets, l.st.RemovedKeysets = keyset.Retire(l.st.Keysets, l.st.RemovedKeysets, r.Name, r.By, workflow.Now(ctx))
		l.touch(ctx)
		return k.Redacted(), nil
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, r api.KeysetDeleteRequest) error {
		return keyset.CheckDelete(l.st.Keysets, r.Name)
	}}); err != nil {
		return err
	}
	if err := l.nodeKeysQuery(ctx); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, api.UpdateKeysetOutcomes, l.recordKeysetOutcomes,
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, r api.KeysetOutcomesRequest) error {
			if r.Nodes != nil {
				return l.checkNodeOutcomes(r)
			}
			_, _, err := l.keysetOutcomes(r)
			return err
		}})
}

// recordKeysetOutcomes keeps what a KeysetWorkflow found on some BMMs'
// BMCs. State only, like the other keyset handlers: no command.
// The BMM keysets' outcomes (Nodes) are kept under each of them.
func (l *clusterLedger) recordKeysetOutcomes(ctx workflow.Context, r api.KeysetOutcomesRequest) error {
	if r.Nodes != nil {
		return l.recordNodeOutcomes(ctx, r)
	}
	list, i, err := l.keysetOutcomes(r)
	if err != nil {
		return err
	}
	// A BMM that left the inventory meanwhile has no outcome to keep.
	outs := l.known(r.Outcomes)
	(*list)[i], _ = keyset.Record((*list)[i], r.Version, outs)
	l.touch(ctx)
	return nil
}

// keysetOutcomes finds the keyset r records outcomes of, in the live list
// or the removed one, and refuses outcomes of another version than the
// ledger's (a run superseded by a newer create, update or delete).
func (l *clusterLedger) keysetOutcomes(r api.KeysetOutcomesRequest) (*[]keyset.Keyset, int, error) {
	list, where := &l.st.Keysets, "keysets"
	if r.Deleted {
		list, where = &l.st.RemovedKeysets, "deleted keysets"
	}
	i := slices.IndexFunc(*list, func(k keyset.Keyset) bool { return k.Name == r.Name })
	if i < 0 {
		return nil, 0, fmt.Errorf("name: %q — not among the %s of cluster %s: superseded", r.Name, where, l.st.Cluster.Name)
	}
	if k := (*list)[i]; !k.Updated.Equal(r.Version) {
		return nil, 0, fmt.Errorf("version: %s — keyset %s is at version %s now: superseded", r.Version.UTC().Format(time.RFC3339Nano), r.Name, k.Updated.UTC().Format(time.RFC3339Nano))
	}
	return list, i, nil
}
