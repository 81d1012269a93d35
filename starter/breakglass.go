package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/spf13/cobra"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
)

// Break-glass commands: resume a Degraded or Failed cluster, free a lease
// whose holder has ended. Each is an Update of the cluster's ledger, which
// records the act with its reason and operator (`starter cluster history`).

func (a *app) clusterResumeCmd() *cobra.Command {
	var cluster, reason, format string
	check := func() error { return breakGlassInput(flag{"cluster", cluster}, reason) }
	cmd := a.clientCmd("resume --cluster C --reason TEXT", "Break-glass: show what is wrong and return a Degraded or Failed cluster to Running (recorded with the reason)",
		time.Minute, check, func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			var res api.ResumeResult
			if err := updateLedger(ctx, c, cluster, api.UpdateResume, api.ResumeRequest{Reason: reason, By: operator()}, &res, "resume of "+cluster); err != nil {
				return err
			}
			return output.Write(cmd.OutOrStdout(), format, res, func() output.Table {
				t := output.Table{Header: []string{"what", "value"}}
				t.Rows = append(t.Rows, []string{"was", res.PreviousStatus + ": " + dash(res.PreviousMessage)},
					[]string{"unhealthy BMMs", dash(strings.Join(res.Unhealthy, ", "))},
					[]string{"KCP set not full", dash(strings.Join(res.MissingKCP, "; "))})
				var leases []string
				for _, l := range res.Leases {
					leases = append(leases, fmt.Sprintf("%s: %s by %s since %s", l.BMM, l.Operation, l.Holder, l.Since.UTC().Format(time.RFC3339)))
				}
				t.Rows = append(t.Rows, []string{"leases held", dash(strings.Join(leases, "; "))}, []string{"now", res.Status + ": " + res.Message})
				return t
			})
		})
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().StringVar(&reason, "reason", "", "why (required; kept in the ledger and shown by `starter cluster history`)")
	outputFlag(cmd, &format)
	return cmd
}

func (a *app) leaseCmd() *cobra.Command {
	var cluster, bmm, reason, format string
	check := func() error { return breakGlassInput(flag{"cluster", cluster}, reason, flag{"bmm", bmm}) }
	release := a.clientCmd("release --cluster C --bmm B --reason TEXT", "Break-glass: free the lease on a BMM whose holder has ended (refused while the holder runs; recorded with the reason)",
		time.Minute, check, func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			var freed lease.Lease
			req := api.LeaseReleaseRequest{BMM: bmm, Reason: reason, By: operator()}
			if err := updateLedger(ctx, c, cluster, api.UpdateBreakGlassFree, req, &freed, "release of the lease on "+bmm); err != nil {
				return err
			}
			return output.Write(cmd.OutOrStdout(), format, freed, func() output.Table {
				return output.Table{Header: []string{"bmm", "operation", "holder", "since", "result"},
					Rows: [][]string{{freed.BMM, string(freed.Operation), freed.Holder, freed.Since.UTC().Format(time.RFC3339), "released"}}}
			})
		})
	f := release.Flags()
	f.StringVar(&cluster, "cluster", "", "cluster name")
	f.StringVar(&bmm, "bmm", "", "BMM whose lease to free")
	f.StringVar(&reason, "reason", "", "why (required; kept in the ledger and shown by `starter cluster history`)")
	outputFlag(release, &format)
	return group("lease", "Break-glass on the ledger's leases", release)
}

// breakGlassInput names every problem of a break-glass command's input at
// once: missing flags and a reason that is not one readable line.
func breakGlassInput(first flag, reason string, more ...flag) error {
	var errs []error
	for _, f := range append([]flag{first}, more...) {
		if f.value == "" {
			errs = append(errs, fmt.Errorf("--%s is required", f.name))
		}
	}
	if reason == "" {
		errs = append(errs, fmt.Errorf("--reason is required: say why (it is kept with the act)"))
	} else if err := lease.CheckReason(true, reason); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// forceFlags adds --force and --reason to a BMM action or runbook.
func forceFlags(cmd *cobra.Command, force *bool, reason *string) {
	cmd.Flags().BoolVar(force, "force", false, "break-glass: act on a Degraded or Failed cluster (needs --reason; the control-plane gate still applies)")
	cmd.Flags().StringVar(reason, "reason", "", "why the action is forced (with --force; recorded in the ledger and the action's history)")
}

// operator names who runs the command, for the record: the OS user.
func operator() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return ""
}

// updateLedger sends a break-glass Update to the cluster's ledger; a
// refusal exits 1 with the ledger's reason.
func updateLedger(ctx context.Context, c client.Client, cluster, name string, arg, out any, what string) error {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   api.ClusterID(cluster),
		UpdateName:   name,
		Args:         []any{arg},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, out)
	}
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return fmt.Errorf("cluster %s is not registered (no running %s): run `starter cluster register --inventory FILE`", cluster, api.ClusterID(cluster))
		}
		return withCode(exitError, fmt.Errorf("%s refused: %s", what, temporalerr.Message(err)))
	}
	return nil
}
