package main

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

func (a *app) bmmTroubleshootCmd() *cobra.Command {
	var in api.TroubleshootInput
	var wait bool
	cmd := &cobra.Command{
		Use:   "troubleshoot --cluster C --bmm NAME --problem " + strings.Join(api.Problems, "|"),
		Short: "Run the escalation runbook (restart → reimage → replace) until the BMM is healthy",
		Long: `troubleshoot starts TroubleshootWorkflow (id troubleshoot:<cluster>:<bmm>), which tries
the decision tree's actions for the problem, least invasive first, verifies the BMM
after each and stops at the first that resolves it:
  unresponsive:  restart → reimage → replace
  os-corruption: reimage → replace
  hardware:      replace
  security:      reimage → replace
Before a replace it waits for the physical repair: confirm with
'starter bmm troubleshoot-confirm' (with the new hardware facts, if any).
With --wait it follows the runbook and exits 3 while it waits for that
confirmation, 2 when the problem persists.
On a Degraded or Failed cluster each step is refused unless forced with
--force --reason TEXT (recorded; the live control-plane gate still applies).
A replace of a server below the firmware baseline of the runtime it installs
is refused, naming each component and the commands that proceed; with
--apply-firmware the replace applies the baseline first (not with --force,
which skips the check).`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in.Force {
				in.By = operator()
			}
			return a.withClient(cmd, 0, in.Validate(), func(ctx context.Context, c client.Client) error {
				id := api.TroubleshootID(in.Cluster, in.BMM)
				_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
					ID:                                       id,
					TaskQueue:                                api.TaskQueue,
					WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
					WorkflowExecutionErrorWhenAlreadyStarted: true,
					StaticSummary:                            fmt.Sprintf("troubleshoot %s on %s of %s", in.Problem, in.BMM, in.Cluster),
					StaticDetails:                            "the escalation runbook for " + in.Problem + ": each step only if the one before did not help",
					TypedSearchAttributes:                    temporal.NewSearchAttributes(saCluster.ValueSet(in.Cluster), saOperation.ValueSet("troubleshoot")),
				}, api.TroubleshootWorkflowName, in)
				if err != nil {
					return fmt.Errorf("start %s: %w (one runbook per BMM at a time: see `starter bmm troubleshoot-status`)", id, err)
				}
				fmt.Fprintln(cmd.OutOrStdout(), id)
				if !wait {
					return nil
				}
				return waitTroubleshoot(ctx, c, cmd, in.Cluster, in.BMM)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.Cluster, "cluster", "", "cluster name")
	f.StringVar(&in.BMM, "bmm", "", "bare-metal machine name")
	f.StringVar(&in.Problem, "problem", "", strings.Join(api.Problems, ", "))
	f.DurationVar(&in.EvacuateTimeout, "evacuate-timeout", 0, "evacuation bound of the reimage and replace steps (default 30m)")
	f.BoolVar(&wait, "wait", false, "follow the runbook: exit 0 resolved, 2 unresolved, 3 waiting for replace confirmation")
	f.BoolVar(&in.ApplyFirmware, "apply-firmware", false, "the replace step applies the runtime's firmware baseline first to a server below it (default: that replace is refused; docs/firmware.md)")
	forceFlags(cmd, &in.Force, &in.Reason)
	return cmd
}

func (a *app) bmmTroubleshootConfirmCmd() *cobra.Command {
	var cluster, bmm string
	var rf replaceFlags
	var wait bool
	cmd := &cobra.Command{
		Use:   "troubleshoot-confirm --cluster C --bmm NAME [replace flags]",
		Short: "Confirm the physical repair so the runbook's replace may run (signal confirm-replace)",
		Long: `troubleshoot-confirm tells a runbook waiting before its replace step that the
hardware is repaired, with the new hardware facts (flags left out keep the ledger's
values; --safeguard-mode defaults to None: the replace evacuates a BMM still Ready).`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			check := cmp.Or(required(flag{"cluster", cluster}, flag{"bmm", bmm}), rf.p.Validate())
			return a.withClient(cmd, 0, check, func(ctx context.Context, c client.Client) error {
				st, err := troubleshootStatus(ctx, c, cluster, bmm)
				if err != nil {
					return err
				}
				if st.Phase != api.TroubleshootAwaitConfirm {
					return fmt.Errorf("the runbook for %s is %s, not waiting for a replace confirmation: %s", bmm, st.Phase, st.Message)
				}
				if err := c.SignalWorkflow(ctx, api.TroubleshootID(cluster, bmm), "", api.SignalConfirmReplace, api.ConfirmReplace{ReplaceParams: rf.p}); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "replace of %s confirmed\n", bmm)
				if !wait {
					return nil
				}
				return waitTroubleshoot(ctx, c, cmd, cluster, bmm)
			})
		},
	}
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().StringVar(&bmm, "bmm", "", "bare-metal machine name")
	cmd.Flags().BoolVar(&wait, "wait", false, "follow the runbook to its end")
	rf.register(cmd)
	return cmd
}

func (a *app) bmmTroubleshootStatusCmd() *cobra.Command {
	var cluster, bmm, format string
	check := func() error { return required(flag{"cluster", cluster}, flag{"bmm", bmm}) }
	cmd := a.clientCmd("troubleshoot-status --cluster C --bmm NAME", "Show a runbook's steps (query status)",
		0, check, func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			st, err := troubleshootStatus(ctx, c, cluster, bmm)
			if err != nil {
				return err
			}
			return writeTroubleshoot(cmd, format, st)
		})
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().StringVar(&bmm, "bmm", "", "bare-metal machine name")
	outputFlag(cmd, &format)
	return cmd
}

func troubleshootStatus(ctx context.Context, c client.Client, cluster, bmm string) (api.TroubleshootStatus, error) {
	id := api.TroubleshootID(cluster, bmm)
	return query[api.TroubleshootStatus](ctx, c, id, api.QueryStatus, func(err error) error {
		return fmt.Errorf("runbook %s: %w", id, err)
	})
}

func writeTroubleshoot(cmd *cobra.Command, format string, st api.TroubleshootStatus) error {
	err := output.Write(cmd.OutOrStdout(), format, st, func() output.Table {
		t := output.Table{Header: []string{"step", "action", "state", "workflow", "error"}}
		for i, s := range st.Steps {
			t.Rows = append(t.Rows, []string{fmt.Sprint(i + 1), s.Action, s.State, dash(s.WorkflowID), dash(s.Error)})
		}
		return t
	})
	if err == nil && (format == "table" || format == "") {
		fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", st.Phase, st.Message)
	}
	return err
}

// waitTroubleshoot follows a runbook: exit 0 resolved, 2 unresolved, 3
// when it waits for the replace confirmation.
func waitTroubleshoot(ctx context.Context, c client.Client, cmd *cobra.Command, cluster, bmm string) error {
	id := api.TroubleshootID(cluster, bmm)
	return watch(ctx, cmd.OutOrStdout(), func(ctx context.Context) (frame, error) {
		d, err := c.DescribeWorkflowExecution(ctx, id, "")
		if err != nil {
			return frame{}, err
		}
		if d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			var st api.TroubleshootStatus
			if err := c.GetWorkflow(ctx, id, "").Get(ctx, &st); err != nil {
				return frame{Done: true, Err: withCode(exitFailed, fmt.Errorf("%s", temporalerr.Message(err)))}, nil
			}
			return frame{Done: true, Err: writeTroubleshoot(cmd, "table", st)}, nil
		}
		st, err := troubleshootStatus(ctx, c, cluster, bmm)
		if err != nil {
			return frame{}, err
		}
		f := frame{Line: progress(st)}
		if st.Phase == api.TroubleshootAwaitConfirm {
			f.Done, f.Err = true, withCode(exitPaused, fmt.Errorf("%s", st.Message))
		}
		return f, nil
	})
}

func progress(st api.TroubleshootStatus) string {
	parts := make([]string, len(st.Steps))
	for i, s := range st.Steps {
		parts[i] = s.Action + ":" + s.State
	}
	return st.Phase + " " + strings.Join(parts, " → ")
}
