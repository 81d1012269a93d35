package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

func (a *app) clusterReplaceRolesCmd() *cobra.Command {
	var cluster string
	var wait bool
	cmd := &cobra.Command{
		Use:   "replace-roles --cluster C [--wait]",
		Short: "Move the control-plane roles to the placement table, one server at a time",
		Long: `replace-roles plans the roles from the ledger (the same plan as
` + "`cluster register --plan`" + `) and starts ReplaceRolesWorkflow (id
replace-roles:<cluster>), which makes each change in turn — a KCP added
before one retires, the new spare before the old one goes — under a lease
and through the live control-plane gate. It plans again before each change,
so running it again after an interruption continues where the site stands;
run again while the re-placement still runs, it follows that one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withClient(cmd, 0, required(flag{"cluster", cluster}), func(ctx context.Context, c client.Client) error {
				st, err := ledgerState(ctx, c, cluster)
				if err != nil {
					return err
				}
				p, err := placement.PlanRoles(st.Cluster.BMMs)
				if err == nil {
					err = p.Err()
				}
				if err != nil {
					return withCode(exitError, fmt.Errorf("replace-roles of %s refused: %w", cluster, err))
				}
				if len(p.Changes) == 0 {
					fmt.Fprintf(cmd.OutOrStdout(), "cluster %s: the roles are the table for %d racks (%d active KCPs, %d spare): nothing to change\n",
						cluster, p.Racks, p.Active, p.Spare)
					return nil
				}
				if err := writeReplan(cmd.OutOrStdout(), "table", cluster, placement.Replan{Racks: p.Racks, Active: p.Active, Spare: p.Spare, Changes: p.Changes}); err != nil {
					return err
				}
				run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
					ID:                                       api.ReplaceRolesID(cluster),
					TaskQueue:                                api.TaskQueue,
					WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
					WorkflowExecutionErrorWhenAlreadyStarted: true,
					WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
					TypedSearchAttributes:                    temporal.NewSearchAttributes(saCluster.ValueSet(cluster), saOperation.ValueSet("replace-roles")),
					StaticSummary:                            fmt.Sprintf("Re-place the control-plane roles of %s (%d changes)", cluster, len(p.Changes)),
				}, api.ReplaceRolesWorkflowName, api.ReplaceRolesInput{Cluster: cluster})
				var started *serviceerror.WorkflowExecutionAlreadyStarted
				switch {
				case errors.As(err, &started):
					// Run again after an interruption (a worker killed, this
					// command's wait cut): the run goes on; follow it.
					run = c.GetWorkflow(ctx, api.ReplaceRolesID(cluster), "")
					fmt.Fprintf(cmd.OutOrStdout(), "a re-placement of %s is already running: following workflow %s\n", cluster, run.GetID())
				case err != nil:
					return err
				default:
					fmt.Fprintf(cmd.OutOrStdout(), "started re-placement of %s: workflow %s run %s\n", cluster, run.GetID(), run.GetRunID())
				}
				if !wait {
					return nil
				}
				var res api.ReplaceRolesStatus
				if err := run.Get(ctx, &res); err != nil {
					return withCode(exitFailed, fmt.Errorf("re-placement of %s: %w", cluster, err))
				}
				return replaceRolesResult(cmd, res)
			})
		},
	}
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().BoolVar(&wait, "wait", false, "wait until every change is made (exit 0) or one fails (exit 2)")
	return cmd
}

// replaceRolesResult prints each change made and fails (exit 2) with the
// workflow's error.
func replaceRolesResult(cmd *cobra.Command, res api.ReplaceRolesStatus) error {
	for _, d := range res.Done {
		state := "done"
		if !d.OK {
			state = "failed: " + d.Detail
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s in %s: %s\n", d.Change, d.FinishedAt.Sub(d.StartedAt).Round(time.Second), state)
	}
	if res.Error != "" {
		return withCode(exitFailed, fmt.Errorf("re-placement of %s stopped: %s", res.Cluster, res.Error))
	}
	fmt.Fprintf(cmd.OutOrStdout(), "re-placement of %s done: %d role changes\n", res.Cluster, len(res.Done))
	return nil
}
