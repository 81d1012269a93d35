package selfupgrade_test

import (
	"context"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/workflows/upgrade"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// rackOnB is build B's rack workflow: a timer before the rack's work, not
// behind workflow.GetVersion — a change that breaks any A history
// replayed on B, and so is safe only because none is.
func rackOnB(ctx workflow.Context, in api.RackInput) (api.RackResult, error) {
	if err := workflow.Sleep(ctx, time.Second); err != nil {
		return api.RackResult{}, err
	}
	return upgrade.RackUpgradeWorkflow(ctx, in)
}

// changedRack is build B's workflows: rackroll's, with rackOnB.
var changedRack = registered{api.RackUpgradeWorkflowName, rackOnB}

// historyOf is workflow id's current run's history.
func historyOf(e *e2e.Env, id string) *history.History {
	e.T.Helper()
	h := &history.History{}
	it := e.Client.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			e.T.Fatal(err)
		}
		h.Events = append(h.Events, ev)
	}
	return h
}

// replaysOn replays h with fn as the rack workflow: nil when it replays.
func replaysOn(h *history.History, fn any) error {
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(fn, workflow.RegisterOptions{Name: api.RackUpgradeWorkflowName})
	return r.ReplayWorkflowHistory(nil, h)
}

// failedTasks counts the workflow task failures in h.
func failedTasks(h *history.History) int {
	n := 0
	for _, ev := range h.Events {
		if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED {
			n++
		}
	}
	return n
}

// startsWithTimer: the run's first command was a timer (rackOnB's).
func startsWithTimer(h *history.History) bool {
	for _, ev := range h.Events {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_TIMER_STARTED:
			return true
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
			enumspb.EVENT_TYPE_MARKER_RECORDED, enumspb.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
			return false
		}
	}
	return false
}

// rackRuns are the upgrade's rack children's histories, by workflow ID:
// those that ran A's rack workflow and those that ran B's (rackOnB).
func rackRuns(e *e2e.Env) (onA, onB map[string]*history.History) {
	e.T.Helper()
	onA, onB = map[string]*history.History{}, map[string]*history.History{}
	resp, err := e.Client.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
		Namespace: "default", Query: "WorkflowType = '" + api.RackUpgradeWorkflowName + "'"})
	if err != nil {
		e.T.Fatal(err)
	}
	for _, x := range resp.GetExecutions() {
		id := x.GetExecution().GetWorkflowId()
		h := historyOf(e, id)
		if startsWithTimer(h) {
			onB[id] = h
		} else {
			onA[id] = h
		}
	}
	return onA, onB
}
