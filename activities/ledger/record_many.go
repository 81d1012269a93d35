package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
)

// RecordManyInput carries facts about several BMMs of one cluster.
type RecordManyInput struct {
	Cluster string         `json:"cluster"`
	Patches []api.BMMPatch `json:"patches"`
}

// RecordBMMs writes several patches, one ledger Update each, in one
// activity: the health monitor's bookkeeping of a large site (say the
// first round after registration, clearing every provisioning start) stays
// one step in its history. Every patch is tried; the errors come back
// together. Patches are idempotent, so a retry writes them all again.
func (a *Activities) RecordBMMs(ctx context.Context, in RecordManyInput) error {
	var errs []error
	for _, p := range in.Patches {
		if err := a.update(ctx, in.Cluster, api.UpdateRecordBMM, p, nil); err != nil {
			errs = append(errs, fmt.Errorf("record %s: %w", p.BMM, err))
		}
	}
	return errors.Join(errs...)
}
