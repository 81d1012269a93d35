package main

import (
	"context"
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// ensureMonitor starts the cluster's HealthMonitorWorkflow unless it runs
// already (USE_EXISTING), so `cluster register` stays idempotent.
func ensureMonitor(ctx context.Context, c client.Client, cluster string) error {
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       api.MonitorID(cluster),
		TaskQueue:                api.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		TypedSearchAttributes:    temporal.NewSearchAttributes(saCluster.ValueSet(cluster), saOperation.ValueSet("monitor")),
		StaticSummary:            fmt.Sprintf("Health monitor of cluster %s", cluster),
		StaticDetails:            "watches node conditions and BMC state; starts a remediation when a trigger holds long enough (interval and limits: the inventory's remediation section)",
	}, api.HealthMonitorWorkflowName, api.MonitorInput{Cluster: cluster})
	if err != nil {
		return fmt.Errorf("start the health monitor %s: %w", api.MonitorID(cluster), err)
	}
	return nil
}

// monitorStatus queries the monitor; an error means it is not running.
func monitorStatus(ctx context.Context, c client.Client, cluster string) (api.MonitorStatus, error) {
	return query[api.MonitorStatus](ctx, c, api.MonitorID(cluster), api.QueryStatus, func(err error) error {
		return fmt.Errorf("health monitor of %s: %w (started by `starter cluster register`)", cluster, err)
	})
}

// monitorFooter prints the monitor's summary under `cluster show` when the
// monitor runs (nothing otherwise: the BMM table stands on its own).
func monitorFooter(ctx context.Context, c client.Client, cmd *cobra.Command, cluster string) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if ms, err := monitorStatus(ctx, c, cluster); err == nil {
		fmt.Fprintln(cmd.OutOrStdout(), ms.Summary())
	}
}
