package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/output"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// actionWatch follows a BMMActionWorkflow for `bmm <action> --watch`. The
// workflow has no status query, and gets none: a query would need a
// worker to answer and a change to workflow code for a display. The
// server's description says all we need instead — its pending activities
// are the step in progress — with the activities' summaries read from the
// history, and the BMM's state from the ledger.
type actionWatch struct {
	c              client.Client
	in             api.ActionInput
	id, runID      string
	started        time.Time
	summaries      map[string]string // activity id → summary ("" when it has none)
	bmmState, bmmM string
}

// actionStep is one pending activity (or child workflow) of an action.
type actionStep struct {
	Step        string
	State       string
	Attempt     int32
	Since       time.Time
	LastFailure string
}

func newActionWatch(c client.Client, in api.ActionInput, run client.WorkflowRun) *actionWatch {
	return &actionWatch{c: c, in: in, id: run.GetID(), runID: run.GetRunID(), started: time.Now(), summaries: map[string]string{}}
}

// poll is a watch poll: done once the workflow closed (the caller then
// reads its result exactly as --wait does, for the same exit codes).
func (aw *actionWatch) poll(ctx context.Context) (frame, error) {
	d, err := aw.c.DescribeWorkflowExecution(ctx, aw.id, aw.runID)
	if err != nil {
		return frame{}, err
	}
	info := d.GetWorkflowExecutionInfo()
	if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return frame{Done: true}, nil
	}
	if t := info.GetStartTime(); t != nil {
		aw.started = t.AsTime()
	}
	steps := aw.steps(ctx, d)
	aw.ledger(ctx)
	return frame{Line: aw.line(steps), Draw: func(w io.Writer) { aw.draw(w, steps) }}, nil
}

func (aw *actionWatch) steps(ctx context.Context, d *workflowservice.DescribeWorkflowExecutionResponse) []actionStep {
	var out []actionStep
	for _, p := range d.GetPendingActivities() {
		name, ok := aw.summaries[p.GetActivityId()]
		if !ok {
			aw.readSummaries(ctx)
			name = aw.summaries[p.GetActivityId()]
			// Remember a miss too, so an activity without a summary
			// costs one history read, not one per second.
			aw.summaries[p.GetActivityId()] = name
		}
		if name == "" {
			name = p.GetActivityType().GetName()
		}
		s := actionStep{Step: name, Attempt: p.GetAttempt(),
			State: strings.ToLower(strings.TrimPrefix(p.GetState().String(), "PENDING_ACTIVITY_STATE_"))}
		if t := p.GetLastStartedTime(); t != nil && s.State == "started" {
			s.Since = t.AsTime()
		} else if t := p.GetScheduledTime(); t != nil {
			s.Since = t.AsTime()
		}
		if f := p.GetLastFailure(); f != nil {
			s.LastFailure = f.GetMessage()
		}
		out = append(out, s)
	}
	for _, ch := range d.GetPendingChildren() {
		out = append(out, actionStep{Step: ch.GetWorkflowTypeName() + " " + ch.GetWorkflowId(), State: "running"})
	}
	return out
}

// readSummaries maps activity ids to the summaries the workflow gave them
// (user metadata of ActivityTaskScheduled; not part of the description).
func (aw *actionWatch) readSummaries(ctx context.Context) {
	it := aw.c.GetWorkflowHistory(ctx, aw.id, aw.runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	dc := converter.GetDefaultDataConverter()
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return // the type name is a fine fallback
		}
		a := ev.GetActivityTaskScheduledEventAttributes()
		if a == nil {
			continue
		}
		var s string
		if p := ev.GetUserMetadata().GetSummary(); p != nil && dc.FromPayload(p, &s) == nil {
			aw.summaries[a.GetActivityId()] = s
		}
	}
}

// ledger reads the BMM's detailed status: what the action recorded so far.
func (aw *actionWatch) ledger(ctx context.Context) {
	v, err := askWorkflow(ctx, aw.c, api.ClusterID(aw.in.Cluster), api.QueryBMM, aw.in.BMM)
	if err != nil {
		return // the ledger is optional to the view; the steps still show
	}
	var st api.ClusterState
	if v.Get(&st) != nil {
		return
	}
	if b, ok := st.Cluster.BMM(aw.in.BMM); ok {
		aw.bmmState, aw.bmmM = b.DetailedStatus, b.DetailedStatusMessage
	}
}

// line carries no clock, so it changes only when the action moves on.
func (aw *actionWatch) line(steps []actionStep) string {
	parts := []string{fmt.Sprintf("%s %s", aw.in.Action, aw.in.BMM)}
	if aw.bmmState != "" {
		parts = append(parts, strings.TrimSpace(aw.bmmState+" "+aw.bmmM))
	}
	if len(steps) == 0 {
		parts = append(parts, "between steps")
	}
	for _, s := range steps {
		p := "step: " + s.Step + " (" + s.State
		if s.Attempt > 1 {
			p += fmt.Sprintf(", attempt %d: %s", s.Attempt, s.LastFailure)
		}
		parts = append(parts, p+")")
	}
	return strings.Join(parts, " | ")
}

func (aw *actionWatch) draw(w io.Writer, steps []actionStep) {
	fmt.Fprintf(w, "%s (%s), running for %s\n", api.ActionSummary(aw.in.Action, aw.in.BMM, aw.in.Cluster), aw.id,
		time.Since(aw.started).Round(time.Second))
	if aw.bmmState != "" {
		fmt.Fprintf(w, "bmm %s: %s %s\n", aw.in.BMM, aw.bmmState, aw.bmmM)
	}
	fmt.Fprintln(w)
	t := output.Table{Header: []string{"step", "state", "for", "attempt", "last failure"}}
	for _, s := range steps {
		since := "-"
		if !s.Since.IsZero() {
			since = time.Since(s.Since).Round(time.Second).String()
		}
		t.Rows = append(t.Rows, []string{s.Step, s.State, since, fmt.Sprint(s.Attempt), dash(s.LastFailure)})
	}
	if len(steps) == 0 {
		t.Rows = append(t.Rows, []string{"(between steps)", "-", "-", "-", "-"})
	}
	output.WriteTable(w, t)
}
