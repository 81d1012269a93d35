package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/internal/temporalerr"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// watchRemediation follows a remediation's status query until it ends:
// exit 0 when the BMM recovered, 1 when it was refused (it never ran; the
// monitor asks again), 2 when the ladder ended without recovering it
// (marked Unhealthy, failed over) or the workflow failed. With -o json or
// yaml the progress goes to errw and only the final status to out, so a
// script can pipe it.
func watchRemediation(ctx context.Context, c client.Client, out, errw io.Writer, format, cluster, bmm string) error {
	id := api.RemediationID(cluster, bmm)
	progress := out
	if format != "table" {
		progress = errw
	}
	return watch(ctx, progress, func(ctx context.Context) (frame, error) {
		d, err := c.DescribeWorkflowExecution(ctx, id, "")
		if err != nil {
			return frame{}, fmt.Errorf("no remediation of %s in cluster %s: %w", bmm, cluster, err)
		}
		running := d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
		var st api.RemediationStatus
		if running {
			if st, err = remediationStatus(ctx, c, cluster, bmm); err != nil {
				return frame{}, err
			}
		} else if err := c.GetWorkflow(ctx, id, "").Get(ctx, &st); err != nil {
			return frame{Done: true, Err: withCode(exitFailed, fmt.Errorf("remediation of %s failed: %s", bmm, temporalerr.Message(err)))}, nil
		}
		f := frame{Line: remediationLine(st), Draw: func(w io.Writer) {
			writeRemediation(w, "table", st)
		}}
		if running {
			return f, nil
		}
		f.Done = true
		if format != "table" {
			if err := writeRemediation(out, format, st); err != nil {
				return frame{}, err
			}
		}
		switch {
		case st.Refused != "":
			f.Err = withCode(exitError, fmt.Errorf("remediation of %s refused: %s", bmm, st.Refused))
		case !st.Recovered:
			f.Err = withCode(exitFailed, fmt.Errorf("remediation of %s did not recover it: %s", bmm, strings.TrimSpace(st.Outcome)))
		}
		return f, nil
	})
}

// remediationLine is the plain-line form: ladder progress, the step in
// flight, and where the ladder stands.
func remediationLine(st api.RemediationStatus) string {
	done := 0
	for _, s := range st.Steps {
		if s.FinishedAt != nil {
			done++
		}
	}
	total := len(remediate.Ladder(st.Role))
	var line string
	switch {
	case st.Finished:
		line = fmt.Sprintf("%s finished after %d steps", strings.TrimSpace(st.BMM+" "+string(st.Role)), done)
	case st.Role == "":
		line = st.BMM + " starting" // the role comes from the ledger, read first
	default:
		// A trigger may skip rungs and a step may repeat: clamp, so the
		// bar reads "steps so far of the ladder's", never overflowing.
		line = fmt.Sprintf("%s %s %s", st.BMM, st.Role, bar(min(done, total), total, 10))
	}
	if st.Step != "" {
		line += " step: " + string(st.Step)
	}
	if o := strings.TrimSpace(st.Outcome); o != "" {
		line += " | " + o
	}
	return line
}

// writeRemediation renders `remediation show` (and each redraw of its
// --watch): the steps, then who, why and where the ladder stands.
func writeRemediation(w io.Writer, format string, st api.RemediationStatus) error {
	if err := output.Write(w, format, st, func() output.Table {
		t := output.Table{Header: []string{"step", "ok", "started", "finished", "detail"}}
		for _, s := range st.Steps {
			fin := "-"
			if s.FinishedAt != nil {
				fin = s.FinishedAt.UTC().Format(time.RFC3339)
			}
			ok := "yes"
			if !s.OK {
				ok = "no"
			}
			if s.FinishedAt == nil {
				ok = "running"
			}
			t.Rows = append(t.Rows, []string{string(s.Step), ok, s.StartedAt.UTC().Format(time.RFC3339), fin, dash(s.Detail)})
		}
		return t
	}); err != nil {
		return err
	}
	if format == "table" {
		fmt.Fprintf(w, "%s (%s): trigger %s since %s\n", st.BMM, st.Role, st.Trigger, st.Since.UTC().Format(time.RFC3339))
		if len(st.Continued) > 0 {
			fmt.Fprintf(w, "continues the ladder of an earlier remediation within the damping window, after: %s\n", continued(st.Continued))
		}
		state := "running"
		if st.Finished {
			state = "finished"
		}
		fmt.Fprintf(w, "%s: %s\n", state, strings.TrimSpace(st.Outcome))
	}
	return nil
}

// continued lists the earlier remediation's steps, each with how it ended.
func continued(steps []remediate.StepResult) string {
	var out []string
	for _, s := range steps {
		ok := "ok"
		if !s.OK {
			ok = "failed"
		}
		out = append(out, fmt.Sprintf("%s (%s)", s.Step, ok))
	}
	return strings.Join(out, ", ")
}
