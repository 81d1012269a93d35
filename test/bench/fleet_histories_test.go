package bench_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"
)

// fleetHistories is what every history of the namespace says: per
// workflow type its largest history and payload, and the Temporal actions
// the histories show, by kind.
type fleetHistories struct {
	sizes   map[string]histSize
	actions map[string]int // kind → count
}

func (h fleetHistories) totalActions() int {
	n := 0
	for _, v := range h.actions {
		n += v
	}
	return n
}

// actionKinds maps a history event to the action Temporal Cloud bills for
// it, as its "Temporal Cloud Actions" page lists them: a workflow started
// (by a client, as a child or by continue-as-new: counted on the new run's
// first event, so a child is counted once), an activity started or
// retried (each attempt: the started event carries the attempt number), a
// timer, a signal (counted where it is received), an Update accepted, a
// search-attribute or memo upsert, and markers: local activities count
// once per workflow task that ran any, every other marker (side effect,
// version) once — an upper bound, the version markers may be free. Not in
// a history, so not counted: queries (the benchmark's own polling),
// activity heartbeats (the instant hardware sends none), rejected Updates.
func actionKind(ev eventView) (string, int) {
	switch ev.typ {
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
		return "workflow-started", 1
	case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
		return "activity-attempt", max(1, int(ev.attempt))
	case enumspb.EVENT_TYPE_TIMER_STARTED:
		return "timer", 1
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
		return "signal", 1
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
		return "update", 1
	case enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, enumspb.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED:
		return "upsert", 1
	case enumspb.EVENT_TYPE_MARKER_RECORDED:
		return "marker-" + ev.marker, 1
	}
	return "", 0
}

type eventView struct {
	typ     enumspb.EventType
	attempt int32
	marker  string
}

// readFleetHistories reads every execution's history (closed and open,
// continued-as-new runs included), workers at a time.
func readFleetHistories(b *testing.B, c client.Client, namespace string, workers int) fleetHistories {
	ctx := context.Background()
	type exec struct{ typ, id, run string }
	var all []exec
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: namespace, PageSize: 1000, NextPageToken: token})
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range resp.Executions {
			all = append(all, exec{e.GetType().GetName(), e.GetExecution().GetWorkflowId(), e.GetExecution().GetRunId()})
		}
		if token = resp.NextPageToken; len(token) == 0 {
			break
		}
	}
	out := fleetHistories{sizes: map[string]histSize{}, actions: map[string]int{}}
	var mu sync.Mutex
	var firstErr error
	work := make(chan exec)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e := range work {
				h, acts, err := readOne(ctx, c, e.id, e.run)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("history of %s: %w", e.id, err)
				}
				out.sizes[e.typ] = out.sizes[e.typ].keep(h)
				for k, v := range acts {
					out.actions[k] += v
				}
				mu.Unlock()
			}
		}()
	}
	for _, e := range all {
		work <- e
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	return out
}

// readOne is one run's size and actions.
func readOne(ctx context.Context, c client.Client, id, run string) (histSize, map[string]int, error) {
	it := c.GetWorkflowHistory(ctx, id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var h histSize
	acts := map[string]int{}
	localInTask := map[int64]bool{} // workflow task completed event → it ran local activities
	var lastTask int64
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return h, nil, err
		}
		h.events++
		h.bytes += proto.Size(ev)
		h.sawPayload(ev)
		v := eventView{typ: ev.GetEventType()}
		switch v.typ {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			lastTask = ev.GetEventId()
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			v.attempt = ev.GetActivityTaskStartedEventAttributes().GetAttempt()
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			v.marker = ev.GetMarkerRecordedEventAttributes().GetMarkerName()
			if v.marker == "LocalActivity" {
				if localInTask[lastTask] {
					continue
				}
				localInTask[lastTask] = true
			}
		}
		if k, n := actionKind(v); n > 0 {
			acts[k] += n
		}
	}
	return h, acts, nil
}

// describeActions is the actions by kind, largest first, for the log.
func describeActions(acts map[string]int) string {
	kinds := make([]string, 0, len(acts))
	for k := range acts {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return acts[kinds[i]] > acts[kinds[j]] })
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s=%d", k, acts[k]))
	}
	return strings.Join(parts, " ")
}
