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
func applyRemediationFacts(b *model.BMM, p api.BMMPatch, prev string, now time.Time, marks bool) {
	b.TrackProvisioning(prev, p.DetailedStatus != nil, p.ProvisioningOver, now)
	if marks {
		b.ApplyMark(p.MarkUnhealthy, p.ClearUnhealthy, now)
	} else {
		legacyMark(b, p)
	}
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

// marksAreState converts the ledger to marks kept as state (version 1 of
// unhealthy-mark-state): a BMM whose status message is the Unhealthy
// warning, as ledgers before the change marked it, gets the mark itself.
// A ledger whose history predates the change keeps the message as the
// mark for the rest of its run (legacyMark); its next run converts.
func (l *clusterLedger) marksAreState(ctx workflow.Context) {
	l.marks = workflow.GetVersion(ctx, "unhealthy-mark-state", workflow.DefaultVersion, 1) == 1
	if !l.marks {
		return
	}
	for i := range l.st.Cluster.BMMs {
		l.st.Cluster.BMMs[i].ApplyMark(nil, false, workflow.Now(ctx))
	}
}

// legacyMark is the mark as a ledger before the change kept it: the status
// message is the mark, any write of another message erases it.
func legacyMark(b *model.BMM, p api.BMMPatch) {
	switch {
	case p.ClearUnhealthy && b.DetailedStatusMessage == model.UnhealthyMessage:
		b.DetailedStatusMessage = ""
	case p.MarkUnhealthy != nil:
		b.DetailedStatusMessage = model.UnhealthyMessage
	}
	if b.DetailedStatusMessage != model.UnhealthyMessage {
		b.Unhealthy = nil
	} else if b.Unhealthy == nil && p.MarkUnhealthy != nil {
		m := *p.MarkUnhealthy
		b.Unhealthy = &m
	}
}
