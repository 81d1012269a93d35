package bench_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
)

// chainLinks splits the serial path of each rack run into its links, read
// from the parent's, the rack's and its servers' histories: what the parent
// takes to start the next rack after the previous one closed, the rack
// child's start, the rack's time before its servers (capacity check
// included), its servers' start, and what follows the slowest server.
// Printed (means per rack run, ms), not asserted: it says which link of the
// chain parent → rack → server the per-step overhead is made of. It returns
// each run's link 3, the time its capacity check holds the servers back:
// a local activity (capacity-local) leaves no activity events to time, so
// the rack's time before its first server stands for the check's cost.
func chainLinks(b *testing.B, c client.Client, parentID string, runs []rackRun, slowest func([]string) (string, time.Duration)) map[string]time.Duration {
	type times struct{ initiated, started, closed time.Time }
	parent := map[string]*times{}
	var order []string
	var lastClose time.Time // the previous child's close, seen by the parent
	gaps := map[string]time.Duration{}
	initiatedID := map[int64]string{}
	walk(b, c, parentID, func(ev historyEvent) {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
			id := ev.GetStartChildWorkflowExecutionInitiatedEventAttributes().GetWorkflowId()
			initiatedID[ev.GetEventId()] = id
			parent[id] = &times{initiated: ev.GetEventTime().AsTime()}
			order = append(order, id)
			if !lastClose.IsZero() {
				gaps[id] = ev.GetEventTime().AsTime().Sub(lastClose)
			}
		case enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED:
			id := initiatedID[ev.GetChildWorkflowExecutionStartedEventAttributes().GetInitiatedEventId()]
			parent[id].started = ev.GetEventTime().AsTime()
		case enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED:
			id := initiatedID[ev.GetChildWorkflowExecutionCompletedEventAttributes().GetInitiatedEventId()]
			parent[id].closed = ev.GetEventTime().AsTime()
			lastClose = parent[id].closed
		}
	})
	sum, checks := map[string]time.Duration{}, map[string]time.Duration{}
	for _, run := range runs {
		p := parent[run.id]
		if p == nil {
			continue
		}
		var rackStart, rackClose, firstInit, lastInit, actSched, actStart, actDone time.Time
		// The capacity check is the rack's activity before its first server.
		check := map[enumspb.EventType]*time.Time{
			enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: &actSched,
			enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:   &actStart,
			enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: &actDone,
		}
		walk(b, c, run.id, func(ev historyEvent) {
			t := ev.GetEventTime().AsTime()
			if at := check[ev.GetEventType()]; at != nil && firstInit.IsZero() {
				*at = t
			}
			switch ev.GetEventType() {
			case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
				rackStart = t
			case enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
				if firstInit.IsZero() {
					firstInit = t
				}
				lastInit = t
			case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
				rackClose = t
			}
		})
		sid, _ := slowest(run.servers)
		d, err := c.DescribeWorkflowExecution(context.Background(), sid, "")
		if err != nil {
			b.Fatal(err)
		}
		info := d.GetWorkflowExecutionInfo()
		sStart, sClose := info.GetStartTime().AsTime(), info.GetCloseTime().AsTime()
		sum["1 parent: previous step closed → rack initiated"] += gaps[run.id]
		sum["2 rack child: initiated → started"] += rackStart.Sub(p.initiated)
		sum["3 rack: started → first server initiated (capacity check)"] += firstInit.Sub(rackStart)
		checks[run.id] = firstInit.Sub(rackStart)
		if !actDone.IsZero() {
			sum["3a rack: started → check scheduled"] += actSched.Sub(rackStart)
			sum["3b check: scheduled → started"] += actStart.Sub(actSched)
			sum["3c check: started → completed"] += actDone.Sub(actStart)
			sum["3d rack: check completed → first server initiated"] += firstInit.Sub(actDone)
		}
		sum["4 rack: first → last server initiated"] += lastInit.Sub(firstInit)
		sum["5 slowest server: rack's first initiated → its start"] += sStart.Sub(firstInit)
		sum["6 rack: slowest server closed → rack closed"] += rackClose.Sub(sClose)
		sum["7 parent: rack closed → parent saw it"] += p.closed.Sub(rackClose)
	}
	var lines []string
	for k, v := range sum {
		lines = append(lines, fmt.Sprintf("  %-60s %6d ms", k, (v/time.Duration(max(1, len(runs)))).Milliseconds()))
	}
	sort.Strings(lines)
	fmt.Printf("serial chain of a rack run, mean over %d runs:\n%s\n", len(runs), strings.Join(lines, "\n"))
	return checks
}

type historyEvent = *historypb.HistoryEvent

// walk calls f on each event of a workflow's history, oldest first.
func walk(b *testing.B, c client.Client, id string, f func(historyEvent)) {
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			b.Fatal(err)
		}
		f(ev)
	}
}
