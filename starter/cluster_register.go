package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/output"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

var (
	saCluster   = temporal.NewSearchAttributeKeyKeyword(api.SearchAttrCluster)
	saOperation = temporal.NewSearchAttributeKeyKeyword(api.SearchAttrOperation)
)

func (a *app) clusterRegisterCmd() *cobra.Command {
	var inventory, format string
	var planOnly bool
	cmd := &cobra.Command{
		Use:   "register --inventory FILE [--plan]",
		Short: "Start the cluster's ledger, or update it from the inventory (idempotent)",
		Long: `register validates the inventory and starts ClusterWorkflow (id cluster:<cluster>)
or, when it runs already, sends it the inventory: hardware facts are updated,
roles, statuses and leases are kept. New servers join as management or
compute (never as an extra KCP or spare); servers the inventory no longer
lists leave. When the rack count or the servers change, the placement table
may want control-plane roles to move: --plan prints the re-placement (joins,
leaves, role changes in their order, refusals) and changes nothing, and
` + "`starter cluster replace-roles`" + ` makes the changes one server at a time.
A registration that would break the table (the spare's rack removed with no
server to take over, an active KCP removed) is refused before anything changes.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			inv, placed, err := loadPlaced(inventory)
			if err != nil {
				return err
			}
			return a.withClient(cmd, 30*time.Second, nil, func(ctx context.Context, c client.Client) error {
				current, err := ledgerBMMs(ctx, c, inv.Cluster)
				if err != nil {
					return err
				}
				p, err := placement.PlanRegistration(current, inv)
				if err != nil {
					return fmt.Errorf("%s: %w", inventory, err)
				}
				if planOnly {
					if err := writeReplan(cmd.OutOrStdout(), format, inv.Cluster, p); err != nil {
						return err
					}
					if format == "table" {
						fmt.Fprintln(cmd.OutOrStdout(), "nothing changed (--plan)")
					}
					return nil
				}
				if err := p.RegistrationErr(); err != nil {
					return withCode(exitError, fmt.Errorf("register cluster %s refused, nothing changed: %w", inv.Cluster, err))
				}
				if err := register(ctx, c, cmd, inv, placed); err != nil {
					return err
				}
				pendingChanges(cmd.OutOrStdout(), inv.Cluster, p)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&inventory, "inventory", "", "site inventory YAML")
	cmd.Flags().BoolVar(&planOnly, "plan", false, "print the re-placement plan and change nothing")
	outputFlag(cmd, &format)
	return cmd
}

// register starts the ledger with the inventory or sends it to the running
// one, then makes sure the health monitor runs.
func register(ctx context.Context, c client.Client, cmd *cobra.Command, inv *model.Inventory, placed []placement.Assignment) error {
	start := c.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID:                       api.ClusterID(inv.Cluster),
		TaskQueue:                api.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		TypedSearchAttributes:    temporal.NewSearchAttributes(saCluster.ValueSet(inv.Cluster), saOperation.ValueSet("ledger")),
		StaticSummary:            fmt.Sprintf("Ledger of cluster %s", inv.Cluster),
		StaticDetails:            fmt.Sprintf("%d racks, %d BMMs, runtime %s", len(inv.Racks), len(placed), inv.RuntimeVersion),
	}, api.ClusterWorkflowName, api.ClusterInput{Inventory: *inv, Placement: placed})
	h, err := c.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{
			UpdateName:   api.UpdateRegister,
			Args:         []any{api.RegisterRequest{Inventory: *inv, Placement: placed}},
			WaitForStage: client.WorkflowUpdateStageCompleted,
		},
	})
	if err != nil {
		return fmt.Errorf("register cluster %s: %w", inv.Cluster, err)
	}
	var st api.ClusterState
	if err := h.Get(ctx, &st); err != nil {
		return fmt.Errorf("register cluster %s: %w", inv.Cluster, err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "cluster %s registered: %d BMMs, %d leases held, ledger %s\n",
		inv.Cluster, len(st.Cluster.BMMs), len(st.Leases), api.ClusterID(inv.Cluster))
	if err := ensureMonitor(ctx, c, inv.Cluster); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "health monitor %s running\n", api.MonitorID(inv.Cluster))
	return nil
}

func (a *app) clusterShowCmd() *cobra.Command {
	var cluster, format string
	check := func() error { return required(flag{"cluster", cluster}) }
	cmd := a.clientCmd("show --cluster C", "Show the cluster's BMMs like `az networkcloud baremetalmachine list`",
		0, check, func(ctx context.Context, cmd *cobra.Command, c client.Client) error {
			st, err := ledgerState(ctx, c, cluster)
			if err != nil {
				return err
			}
			err = output.Write(cmd.OutOrStdout(), format, st, func() output.Table {
				t := output.Table{Header: []string{"name", "rack", "roles", "version", "detailed status", "message", "power", "cordon", "ready", "lease"}}
				leases := map[string]string{}
				for _, l := range st.Leases {
					leases[l.BMM] = string(l.Operation) + " by " + l.Holder
				}
				for _, b := range st.Cluster.BMMs {
					roles := make([]string, len(b.Roles))
					for i, r := range b.Roles {
						roles[i] = string(r)
					}
					t.Rows = append(t.Rows, []string{b.Name, b.Rack, strings.Join(roles, ","), b.RuntimeVersion,
						b.DetailedStatus, dash(b.DetailedStatusMessage), b.PowerState, b.CordonStatus, readyCell(b), dash(leases[b.Name])})
				}
				return t
			})
			if err == nil && format == "table" {
				fmt.Fprintln(cmd.OutOrStdout(), runtimeLine(st))
				fmt.Fprintln(cmd.OutOrStdout(), limitsLine(st.Limits(), st.Remediation))
				fmt.Fprintln(cmd.OutOrStdout(), st.ControlPlaneLine())
				if line := st.UnhealthyLine(); line != "" {
					fmt.Fprintln(cmd.OutOrStdout(), line)
				}
				if line := placementLine(st); line != "" {
					fmt.Fprintln(cmd.OutOrStdout(), line)
				}
				if line := keysetsLine(st, time.Now()); line != "" {
					fmt.Fprintln(cmd.OutOrStdout(), line)
				}
				monitorFooter(ctx, c, cmd, cluster)
				printBuilds(ctx, cmd.OutOrStdout(), c, longRuns(cluster)...)
			}
			return err
		})
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	outputFlag(cmd, &format)
	return cmd
}

// clusterState dials Temporal for the ledger's state.
func (a *app) clusterState(ctx context.Context, cluster string) (api.ClusterState, error) {
	c, err := a.dial()
	if err != nil {
		return api.ClusterState{}, err
	}
	defer c.Close()
	return ledgerState(ctx, c, cluster)
}

// ledgerState queries the cluster's ledger for its state.
func ledgerState(ctx context.Context, c client.Client, cluster string) (api.ClusterState, error) {
	return query[api.ClusterState](ctx, c, api.ClusterID(cluster), api.QueryState, func(err error) error {
		return fmt.Errorf("cluster %s: %w (registered? `starter cluster register --inventory FILE`)", cluster, err)
	})
}

// runtimeLine is the cluster's runtime under `cluster show`: mixed (both
// versions) while an upgrade owes servers, with how to finish them.
func runtimeLine(st api.ClusterState) string {
	line := "runtime: " + upgradeplan.RuntimeLabel(st.Cluster)
	if st.UpgradeTarget != "" && st.Cluster.DetailedStatus == model.ClusterRunning {
		line += fmt.Sprintf("; the upgrade to %s owes servers: `starter upgrade start --cluster %s --version %s` finishes them",
			st.UpgradeTarget, st.Cluster.Name, st.UpgradeTarget)
	}
	return line
}
