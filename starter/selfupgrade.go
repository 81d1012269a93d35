package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// The long runs of a cluster, which move to a new rackroll build by
// themselves at their safe points (docs/self-upgrade.md).
func longRuns(cluster string) []string {
	return []string{api.UpgradeID(cluster), api.ClusterID(cluster), api.MonitorID(cluster)}
}

// keysetRuns are the cluster's keyset runs, which wait for an expiry and
// move on a wake like the others: the nodes run and one per keyset the
// ledger holds (a removed BMC keyset's run disables its accounts). A
// ledger that does not answer names none: the wake goes on without them.
func keysetRuns(ctx context.Context, c client.Client, cluster string) []string {
	ids := []string{api.KeysetNodesID(cluster)}
	st, err := ledgerState(ctx, c, cluster)
	if err != nil {
		return ids
	}
	for _, k := range append(st.Keysets, st.RemovedKeysets...) {
		ids = append(ids, api.KeysetID(cluster, k.Name))
	}
	return ids
}

// runBuild is where one long run stands: running or not, its build and
// behaviour ("unversioned" on an unversioned worker).
type runBuild struct {
	ID, State, Build, Behavior string
}

func buildOf(ctx context.Context, c client.Client, id string) runBuild {
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return runBuild{ID: id, State: "none"}
	}
	info := d.GetWorkflowExecutionInfo()
	rb := runBuild{ID: id, State: strings.ToLower(strings.TrimPrefix(info.GetStatus().String(), "WORKFLOW_EXECUTION_STATUS_")),
		Build: "unversioned", Behavior: "-"}
	if v := info.GetVersioningInfo(); v.GetDeploymentVersion() != nil {
		dv := v.GetDeploymentVersion()
		rb.Build = dv.GetDeploymentName() + ":" + dv.GetBuildId()
		rb.Behavior = strings.ToLower(strings.TrimPrefix(v.GetBehavior().String(), "VERSIONING_BEHAVIOR_"))
	}
	return rb
}

func writeBuilds(w io.Writer, rows []runBuild, woken map[string]bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTATE\tBUILD\tBEHAVIOUR\tWOKEN")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%v\n", r.ID, r.State, r.Build, r.Behavior, woken[r.ID])
	}
	return tw.Flush()
}

func (a *app) selfUpgradeCmd() *cobra.Command {
	var cluster, deployment string
	check := func() error { return required(flag{"cluster", cluster}) }
	status := a.clientCmd("status [--cluster C]", "Show the deployment's builds (current, ramping, drainage) and the build each long run of every cluster is on; with --cluster, that cluster's runs only",
		30*time.Second, func() error {
			if err := selfupgrade.ValidDeploymentName(deployment); err != nil {
				return fmt.Errorf("--deployment: %w", err)
			}
			return nil
		}, func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			if cluster != "" {
				var rows []runBuild
				for _, id := range append(longRuns(cluster), keysetRuns(ctx, c, cluster)...) {
					rows = append(rows, buildOf(ctx, c, id))
				}
				return writeBuilds(cmd.OutOrStdout(), rows, nil)
			}
			return deploymentStatus(ctx, cmd.OutOrStdout(), c, deployment)
		})
	status.Flags().StringVar(&deployment, "deployment", selfupgrade.DefaultDeployment, "Worker Deployment of rackroll's workers")
	wake := a.clientCmd("wake --cluster C", "Signal self-upgrade to the cluster's running long runs, so that one waiting (a paused upgrade, an idle ledger, a keyset run waiting for its expiry) moves to the current build; send it again until `status` shows the new build",
		30*time.Second, check, func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			var rows []runBuild
			woken := map[string]bool{}
			for _, id := range append(longRuns(cluster), keysetRuns(ctx, c, cluster)...) {
				rb := buildOf(ctx, c, id)
				if rb.State == enumsRunning {
					if err := c.SignalWorkflow(ctx, id, "", api.SignalSelfUpgrade, nil); err != nil {
						return fmt.Errorf("wake %s: %w", id, err)
					}
					woken[id] = true
				}
				rows = append(rows, rb)
			}
			return writeBuilds(cmd.OutOrStdout(), rows, woken)
		})
	for _, c := range []*cobra.Command{status, wake} {
		c.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	}
	return group("self-upgrade", "Roll rackroll's own builds out and back, follow the build of each long run, and wake the runs that wait (docs/install.md#upgrade-rackroll-itself)",
		status, wake, a.selfUpgradeRolloutCmd(), a.selfUpgradeRollbackCmd())
}

// deploymentStatus is `status` without --cluster: the deployment's
// versions, then every registered cluster's long runs. A deployment no
// versioned worker polled is said, not an error: the runs are still shown.
func deploymentStatus(ctx context.Context, w io.Writer, c client.Client, deployment string) error {
	v, err := describeDeployment(ctx, c, deployment)
	switch {
	case errors.Is(err, errNoDeployment):
		fmt.Fprintln(w, err)
	case err != nil:
		return err
	default:
		if err := writeDeployment(w, v); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	clusters, err := registeredClusters(ctx, c)
	if err != nil {
		return err
	}
	return writeRuns(w, clusterRuns(ctx, c, clusters))
}

// enumsRunning is a running execution's state as buildOf writes it.
var enumsRunning = strings.ToLower(strings.TrimPrefix(enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING.String(), "WORKFLOW_EXECUTION_STATUS_"))
