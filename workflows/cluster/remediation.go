package cluster

import (
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"go.temporal.io/sdk/workflow"
)

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
	l.marks = workflow.GetVersion(ctx, changeUnhealthyMarkState, workflow.DefaultVersion, 1) == 1
	if !l.marks {
		return
	}
	for i := range l.st.Cluster.BMMs {
		l.st.Cluster.BMMs[i].ApplyMark(nil, false, workflow.Now(ctx))
	}
}
