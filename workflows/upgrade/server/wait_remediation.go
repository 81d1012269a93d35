package server

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// RemediationWaitLimit bounded how long an upgrade step waits for a
// remediation (or failover) that holds its BMM in runs started before the
// table's remediationWait (the same default); remediationPoll is how often
// it looks again.
const (
	RemediationWaitLimit = 2 * time.Hour
	remediationPoll      = 30 * time.Second
)

// awaitRemediation waits, where the BMM is leased by a remediation or a
// failover, until that lease is gone (waited true): the remediation may well leave the
// server healthy, and failing the step at once would count it against the
// rack's threshold for nothing. The BMM's message says what it waits for
// (`cluster show`). After RemediationWaitLimit it gives up with the holder
// named; any other holder is left to the lease's own refusal.
func awaitRemediation(ctx workflow.Context, in api.ServerInput) (bool, error) {
	limit := kernel.Limit{D: RemediationWaitLimit, Key: "timeouts.remediationWait"}
	if in.Limits != nil {
		limit = kernel.TimeoutLimit(in.Limits.OrDefaults(), "remediationWait")
	}
	deadline := workflow.Now(ctx).Add(limit.D)
	said := ""
	for {
		cs, err := kernel.LedgerOf(in.Cluster).ReadBMM(ctx, in.BMM)
		if err != nil {
			return false, err
		}
		holder := remediationHolder(cs.Leases, in.BMM)
		if holder == "" {
			return said != "", nil
		}
		if !workflow.Now(ctx).Before(deadline) {
			return false, fmt.Errorf("%s is still held by %s after %v: the upgrade step gave up waiting for it", in.BMM, holder, limit)
		}
		if said != holder {
			said = holder
			msg := fmt.Sprintf("Upgrade to %s waits for %s to release this server", in.TargetVersion, holder)
			if err := kernel.LedgerOf(in.Cluster).Record(ctx, api.BMMPatch{BMM: in.BMM, DetailedStatusMessage: api.Str(msg)}); err != nil {
				return false, err
			}
		}
		if err := workflow.Sleep(ctx, remediationPoll); err != nil {
			return false, err
		}
	}
}

// remediationHolder names the remediation or failover holding bmm, "" when
// none does.
func remediationHolder(ls []lease.Lease, bmm string) string {
	for _, l := range ls {
		if l.BMM == bmm && (l.Operation == lease.OpRemediation || l.Operation == lease.OpFailover) {
			return fmt.Sprintf("%s (%s)", l.Holder, l.Operation)
		}
	}
	return ""
}
