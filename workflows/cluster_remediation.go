package workflows

import (
	"slices"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"go.temporal.io/sdk/workflow"
)

// applyRemediationFacts is the part of a patch the remediation rules read:
// the provisioning start (model.TrackProvisioning, from the status change
// the patch made) and the ladder's position.
func applyRemediationFacts(b *model.BMM, p api.BMMPatch, prev string, now time.Time) {
	b.TrackProvisioning(prev, p.DetailedStatus != nil, p.ProvisioningOver, now)
	if p.ClearLadder {
		b.Ladder = nil
	}
	if p.Ladder != nil {
		m := *p.Ladder
		m.Steps = slices.Clone(m.Steps)
		b.Ladder = &m
	}
}

// registerStamped registers the inventory and starts the provisioning
// clock of every BMM new to the ledger: registration is its initial
// deployment, and nothing has seen its node Ready yet (the health monitor
// clears the clock when it does).
func (l *clusterLedger) registerStamped(ctx workflow.Context, inv model.Inventory, placed []placement.Assignment, changeID string) {
	known := map[string]bool{}
	for _, b := range l.st.Cluster.BMMs {
		known[b.Name] = true
	}
	l.register(ctx, inv, placed, changeID)
	now := workflow.Now(ctx).UTC()
	for i := range l.st.Cluster.BMMs {
		if b := &l.st.Cluster.BMMs[i]; !known[b.Name] {
			t := now
			b.ProvisioningSince = &t
		}
	}
}
