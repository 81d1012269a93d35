package upgrade

import (
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"go.temporal.io/sdk/workflow"
)

// reportEvery spaces a rack's reports to its parent. Each report costs the
// parent's history a signal and a workflow task (4 events), so reports
// are few: none from a rack done within a minute (the history bench's
// racks, the lab's), at most one a minute from a rack of real servers,
// which take most of an hour each. `starter upgrade status` is at most
// this much behind.
const reportEvery = time.Minute

// rackReport keeps the parent's view of a rack's servers current: it
// signals the servers whose state changed since its last report, at most
// once per reportEvery; a timer on the rack's selector sends what changed
// in between. The parent marks the first wave Running as it starts the
// rack, so the first report is due only reportEvery later: a rack done by
// then sends none. Nil (reports nothing) without a parent, and for racks
// started before version 1, so recorded histories replay.
type rackReport struct {
	ctx     workflow.Context
	sel     workflow.Selector
	parent  *workflow.Execution
	sent    map[string]string // server -> state last reported
	last    time.Time
	waiting bool // a timer will send the held-back changes
}

func newRackReport(ctx workflow.Context, sel workflow.Selector, rack upgradeplan.Rack) *rackReport {
	parent := workflow.GetInfo(ctx).ParentWorkflowExecution
	if parent == nil || workflow.GetVersion(ctx, changeRackReportsProgress, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	r := &rackReport{ctx: ctx, sel: sel, parent: parent, sent: map[string]string{}, last: workflow.Now(ctx)}
	for _, s := range rack.Servers {
		r.sent[s] = api.StatePending
	}
	for _, s := range rack.FirstWave() {
		r.sent[s] = api.StateRunning
	}
	return r
}

// send reports what changed in servers, now or when the timer fires.
func (r *rackReport) send(servers []api.ServerStatus) { r.report(servers, false) }

// sendNow reports what changed at once: the operator's cancel-update shows
// within seconds, not at the next minute.
func (r *rackReport) sendNow(servers []api.ServerStatus) { r.report(servers, true) }

func (r *rackReport) report(servers []api.ServerStatus, now bool) {
	if r == nil || (r.waiting && !now) {
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
	at := workflow.Now(r.ctx)
	if wait := r.last.Add(reportEvery).Sub(at); wait > 0 && !now {
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
	r.last = at
}
