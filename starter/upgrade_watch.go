package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// isTerminal reports whether w is a terminal, where progress redraws in
// place; elsewhere (pipes, CI logs) it prints plain lines.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// waitUpgrade follows an upgrade until it ends (exit 0), fails (exit 2) or
// pauses for the operator's word (exit 3), printing progress as it goes. With
// -o json or yaml the progress goes to stderr and only the status where
// the watch stopped to stdout, so a script can pipe it.
func (a *app) waitUpgrade(ctx context.Context, c client.Client, cmd *cobra.Command, cluster, format string) error {
	progress := cmd.OutOrStdout()
	if format != "table" {
		progress = cmd.ErrOrStderr()
	}
	return watch(ctx, progress, func(ctx context.Context) (frame, error) {
		d, err := c.DescribeWorkflowExecution(ctx, api.UpgradeID(cluster), "")
		if err != nil {
			return frame{}, err
		}
		if d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			// The outcome prints its own table and summary.
			return frame{Done: true, Err: a.upgradeOutcome(ctx, c, cmd, cluster, format)}, nil
		}
		st, err := upgradeStatus(ctx, c, cluster)
		if err != nil {
			return frame{}, err
		}
		f := frame{Line: progressLine(st), Draw: func(w io.Writer) {
			writeUpgradeStatus(w, "table", st)
			fmt.Fprintf(w, "\n%s\n", st.DetailedStatusMessage)
		}}
		if st.DetailedStatus == model.ClusterUpdatePaused {
			if format != "table" {
				if err := writeUpgradeStatus(cmd.OutOrStdout(), format, st); err != nil {
					return frame{}, err
				}
			}
			f.Done = true
			f.Err = withCode(exitPaused, fmt.Errorf("upgrade of %s paused: %s\n(continue: starter upgrade continue --cluster %s; cancel: starter upgrade cancel --cluster %s)",
				cluster, st.DetailedStatusMessage, cluster, cluster))
		}
		return f, nil
	})
}

// upgradeOutcome shows how a closed upgrade ended: the status table and
// the summary, or with -o json|yaml the status on stdout and the summary
// on stderr.
func (a *app) upgradeOutcome(ctx context.Context, c client.Client, cmd *cobra.Command, cluster, format string) error {
	var st api.UpgradeStatus
	err := c.GetWorkflow(ctx, api.UpgradeID(cluster), "").Get(ctx, &st)
	if err != nil {
		return withCode(exitFailed, fmt.Errorf("upgrade of %s failed: %s", cluster, temporalerr.Message(err)))
	}
	w := cmd.OutOrStdout()
	if format == "table" {
		writeUpgradeStatus(w, "table", st)
		fmt.Fprintln(w)
	} else {
		if err := writeUpgradeStatus(w, format, st); err != nil {
			return err
		}
		w = cmd.ErrOrStderr()
	}
	summary(w, st)
	if st.DetailedStatus == api.StateCancelled {
		return withCode(exitFailed, fmt.Errorf("%s", st.DetailedStatusMessage))
	}
	return nil
}

// summary says how long each unit took and what this run did: a resumed
// upgrade finds servers already at the target, which it counts apart.
func summary(w io.Writer, st api.UpgradeStatus) {
	dur := func(u api.Unit) string {
		if u.StartedAt == nil || u.FinishedAt == nil {
			return "-"
		}
		return u.FinishedAt.Sub(*u.StartedAt).Round(time.Second).String()
	}
	up, already, failed := 0, 0, 0
	for _, u := range st.Units() {
		up += u.Succeeded - u.Skipped
		already += u.Skipped
		failed += u.Failed
		fmt.Fprintf(w, "%s: %s\n", u.Label(), dur(u))
	}
	total := "-"
	if st.FinishedAt != nil {
		total = st.FinishedAt.Sub(st.StartedAt).Round(time.Second).String()
	}
	// Retires this run carried out: planned, not skipped, succeeded. A
	// spare kept on its version is skipped but not at the target.
	retired := 0
	if st.Plan != nil {
		for _, k := range st.Plan.ControlPlane {
			if k.Action == upgradeplan.KCPRetire && !k.Skip && st.ControlPlane.StateOf(k.BMM) == api.StateSucceeded {
				retired++
			}
			if k.Skip && k.Kept {
				already--
			}
		}
	}
	fmt.Fprintf(w, "%s: %d servers upgraded, %d retired to spare, %d failed (left cordoned), in %s",
		st.DetailedStatusMessage, up-retired, retired, failed, total)
	if already > 0 {
		fmt.Fprintf(w, "; %d already at %s before this run", already, st.TargetVersion)
	}
	fmt.Fprintln(w)
}
