package workflows

import (
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/workflow"
)

// reportEvery spaces a rack's reports to its parent, so the parent's
// history grows with the upgrade's duration, not with its servers
// (BenchmarkHistoryBounds: under 1,000 events for 2,048 servers), while
// `starter upgrade status` is never more than this behind.
const reportEvery = 10 * time.Second

// rackReport keeps the parent's view of a rack's servers current: it
// signals the servers whose state changed since its last report, at most
// once per reportEvery; a timer on the rack's selector sends what changed
// in between. Nil (reports nothing) without a parent, and for racks
// started before version 1, so recorded histories replay.
type rackReport struct {
	ctx     workflow.Context
	sel     workflow.Selector
	parent  *workflow.Execution
	sent    map[string]string // server -> state last reported
	last    time.Time
	waiting bool // a timer will send the held-back changes
}

func newRackReport(ctx workflow.Context, sel workflow.Selector, servers []api.ServerStatus) *rackReport {
	parent := workflow.GetInfo(ctx).ParentWorkflowExecution
	if parent == nil || workflow.GetVersion(ctx, "rack-reports-progress", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	r := &rackReport{ctx: ctx, sel: sel, parent: parent, sent: map[string]string{}}
	for _, s := range servers {
		r.sent[s.Name] = s.State
	}
	return r
}

// send reports what changed in servers, now or when the timer fires.
func (r *rackReport) send(servers []api.ServerStatus) {
	if r == nil || r.waiting {
		return
	}
	var changed []api.ServerStatus
	for _, s := range servers {
		if r.sent[s.Name] != s.State {
			changed = append(changed, s)
		}
	}
	if len(changed) == 0 {
		return
	}
	now := workflow.Now(r.ctx)
	if wait := r.last.Add(reportEvery).Sub(now); wait > 0 {
		r.waiting = true
		r.sel.AddFuture(workflow.NewTimer(r.ctx, wait), func(workflow.Future) { r.waiting = false })
		return
	}
	// Not waited on: the rack's result carries the same states, so a lost
	// report costs the parent nothing but freshness.
	workflow.SignalExternalWorkflow(r.ctx, r.parent.ID, r.parent.RunID, api.SignalRackProgress,
		api.RackProgress{Run: workflow.GetInfo(r.ctx).WorkflowExecution.ID, Servers: changed})
	for _, s := range changed {
		r.sent[s.Name] = s.State
	}
	r.last = now
}
