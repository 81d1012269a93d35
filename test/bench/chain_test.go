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
	"go.temporal.io/sdk/converter"
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
	// The parent's task after a close: its wait for a worker, then its run.
	var taskStarted time.Time
	waits, taskRuns := map[string]time.Duration{}, map[string]time.Duration{}
	initiatedID := map[int64]string{}
	// The parent's own time outside its children, gap by gap: what it ran
	// (activities) before each child, and after the last one.
	var pStart, pEnd, since time.Time
	var acts []string
	var gapLines []string
	gapLine := func(to string, at time.Time) {
		gapLines = append(gapLines, fmt.Sprintf("  %6d ms before %s: %s", at.Sub(since).Milliseconds(), to, strings.Join(acts, " ")))
		acts = nil
	}
	walk(b, c, parentID, func(ev historyEvent) {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
			pStart, since = ev.GetEventTime().AsTime(), ev.GetEventTime().AsTime()
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
			pEnd = ev.GetEventTime().AsTime()
			gapLine("the end", pEnd)
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			acts = append(acts, ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName())
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
			if !lastClose.IsZero() && taskStarted.IsZero() {
				taskStarted = ev.GetEventTime().AsTime()
			}
		case enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
			id := ev.GetStartChildWorkflowExecutionInitiatedEventAttributes().GetWorkflowId()
			initiatedID[ev.GetEventId()] = id
			parent[id] = &times{initiated: ev.GetEventTime().AsTime()}
			order = append(order, id)
			gapLine(id, ev.GetEventTime().AsTime())
			if !lastClose.IsZero() {
				gaps[id] = ev.GetEventTime().AsTime().Sub(lastClose)
				if !taskStarted.IsZero() {
					waits[id], taskRuns[id] = taskStarted.Sub(lastClose), ev.GetEventTime().AsTime().Sub(taskStarted)
				}
			}
		case enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED:
			id := initiatedID[ev.GetChildWorkflowExecutionStartedEventAttributes().GetInitiatedEventId()]
			parent[id].started = ev.GetEventTime().AsTime()
		case enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED:
			id := initiatedID[ev.GetChildWorkflowExecutionCompletedEventAttributes().GetInitiatedEventId()]
			parent[id].closed = ev.GetEventTime().AsTime()
			lastClose, taskStarted = parent[id].closed, time.Time{}
			since = lastClose
		}
	})
	sum, checks := map[string]time.Duration{}, map[string]time.Duration{}
	for _, run := range runs {
		p := parent[run.id]
		if p == nil {
			continue
		}
		var rackStart, rackClose, firstInit, lastInit, actSched, actStart, actDone time.Time
		// The rack's first and last workflow tasks (scheduled, started,
		// completed): where links 3 and 6 spend their time.
		var first, last [3]time.Time
		var laDone time.Time
		wft := map[enumspb.EventType]int{
			enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED: 0,
			enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:   1,
			enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED: 2,
		}
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
			if m := ev.GetMarkerRecordedEventAttributes(); m != nil && m.GetMarkerName() == "LocalActivity" && laDone.IsZero() {
				// The local check's end, by the worker's clock.
				var data struct{ ReplayTime time.Time }
				if converter.GetDefaultDataConverter().FromPayloads(m.GetDetails()["data"], &data) == nil {
					laDone = data.ReplayTime
				}
			}
			if i, ok := wft[ev.GetEventType()]; ok {
				if first[2].IsZero() {
					first[i] = t
				}
				if i == 0 {
					last = [3]time.Time{}
				}
				last[i] = t
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
		sum["1a parent: previous step closed → its task started"] += waits[run.id]
		sum["1b parent: its task started → rack initiated"] += taskRuns[run.id]
		sum["2 rack child: initiated → started"] += rackStart.Sub(p.initiated)
		sum["3 rack: started → first server initiated (capacity check)"] += firstInit.Sub(rackStart)
		checks[run.id] = firstInit.Sub(rackStart)
		if !actDone.IsZero() {
			sum["3a rack: started → check scheduled"] += actSched.Sub(rackStart)
			sum["3b check: scheduled → started"] += actStart.Sub(actSched)
			sum["3c check: started → completed"] += actDone.Sub(actStart)
			sum["3d rack: check completed → first server initiated"] += firstInit.Sub(actDone)
		}
		if !first[2].IsZero() && actDone.IsZero() {
			sum["3e rack: started → first task started"] += first[1].Sub(rackStart)
			sum["3f rack: first task started → completed (local check)"] += first[2].Sub(first[1])
			if !laDone.IsZero() {
				sum["3g of which the local check (to its end, worker's clock)"] += laDone.Sub(first[1])
			}
		}
		if !last[2].IsZero() {
			sum["6a slowest server closed → rack's last task scheduled"] += last[0].Sub(sClose)
			sum["6b rack's last task: scheduled → started"] += last[1].Sub(last[0])
			sum["6c rack's last task: started → completed"] += last[2].Sub(last[1])
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
	fmt.Printf("parent's own time (%v in all), gap by gap:\n%s\n", pEnd.Sub(pStart).Round(time.Millisecond), strings.Join(gapLines, "\n"))
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
