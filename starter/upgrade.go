package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

var saPhase = temporal.NewSearchAttributeKeyKeyword(api.SearchAttrPhase)

func (a *app) upgradeCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "upgrade", Short: "Plan, run and steer runtime upgrades"}
	cmd.AddCommand(a.upgradeStartCmd(), a.upgradePlanCmd(), a.upgradeStatusCmd(),
		a.upgradeSteerCmd(api.UpdateContinue, "continue", "Continue a paused upgrade (continue-update)"),
		a.upgradeSteerCmd(api.UpdateCancel, "cancel", "Stop the upgrade after the servers in flight (cancel-update)"),
		a.upgradeSteerCmd(api.UpdatePause, "pause", "Pause before the next management group or rack starts; the one in flight finishes (pause-update)"))
	return cmd
}

// strategyFlags are the operator's update-strategy fields as flags.
type strategyFlags struct {
	strategy, thresholdType string
	thresholdValue          int
	maxUnavailable          int
	waitTime                int
	systemic                int
	capacity                string
}

func (s *strategyFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&s.strategy, "strategy", model.StrategyRack, "Rack or PauseAfterRack")
	cmd.Flags().StringVar(&s.thresholdType, "threshold-type", model.ThresholdPercentSuccess, "CountSuccess or PercentSuccess")
	cmd.Flags().IntVar(&s.thresholdValue, "threshold-value", model.DefaultThresholdValue, "servers (CountSuccess) or percent (PercentSuccess) of a rack that must succeed")
	cmd.Flags().IntVar(&s.maxUnavailable, "max-unavailable", 0, "servers of a rack upgraded at once (0: the whole rack)")
	cmd.Flags().IntVar(&s.waitTime, "wait-time-minutes", model.DefaultWaitTimeMinutes, "minutes to wait after each rack (0–60)")
	cmd.Flags().StringVar(&s.capacity, "capacity-policy", model.CapacityWarn, "when the pods a drain evicts (a rack's first wave, each server after it, a management stage) cannot all land elsewhere: Warn (proceed, naming the pods left Pending) or Pause (before the drain)")
	cmd.Flags().IntVar(&s.systemic, "systemic-failures", model.DefaultSystemicFailures, "compute servers that go first: when all fail at the same step the upgrade pauses (0: off)")
}

func (s *strategyFlags) value() model.UpdateStrategy {
	w, k := s.waitTime, s.systemic
	return model.UpdateStrategy{StrategyType: s.strategy, ThresholdType: s.thresholdType, ThresholdValue: s.thresholdValue,
		MaxUnavailable: s.maxUnavailable, WaitTimeMinutes: &w, SystemicFailures: &k, CapacityPolicy: s.capacity}
}

func (a *app) upgradeStartCmd() *cobra.Command {
	var cluster, version string
	var sf strategyFlags
	var wait bool
	var drain, vms time.Duration
	cmd := &cobra.Command{
		Use:   "start --cluster C --version V",
		Short: "Start a runtime upgrade (one per cluster at a time)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := required(flag{"cluster", cluster}, flag{"version", version}); err != nil {
				return err
			}
			s := sf.value()
			if err := s.Validate(); err != nil {
				return err
			}
			c, err := a.dial()
			if err != nil {
				return err
			}
			defer c.Close()
			ctx := cmd.Context()
			st, err := clusterStateWith(ctx, c, cluster)
			if err != nil {
				return err
			}
			// The same preflight as the workflow, so mistakes are caught
			// before anything starts.
			p, err := upgradeplan.Build(st.Cluster, version, s, st.UpgradeTarget == version, planOptions(st, version)...)
			if err != nil {
				return fmt.Errorf("upgrade of %s to %s refused:\n%w", cluster, version, err)
			}
			// An image server that answers "not here" is believed at once;
			// one this machine cannot reach is the worker's to judge.
			if img, reached := askImage(ctx, st, version); reached && !img.OK {
				return fmt.Errorf("upgrade of %s to %s refused: %s", cluster, version, img.Refusal())
			}
			in := api.UpgradeInput{Cluster: cluster, TargetVersion: version, UpdateStrategy: s, DrainTimeout: drain, VMShutdownTimeout: vms}
			run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
				ID:                                       api.UpgradeID(cluster),
				TaskQueue:                                api.TaskQueue,
				WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
				WorkflowExecutionErrorWhenAlreadyStarted: true,
				// A failed upgrade may be run again: it resumes.
				WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
				TypedSearchAttributes: temporal.NewSearchAttributes(saCluster.ValueSet(cluster), saOperation.ValueSet("runtime-upgrade"), saPhase.ValueSet(api.PhasePreflight)),
				StaticSummary:         fmt.Sprintf("Runtime upgrade of %s to %s", cluster, version),
				StaticDetails:         p.Strategy.Describe(),
			}, api.RuntimeUpgradeWorkflowName, in)
			var started *serviceerror.WorkflowExecutionAlreadyStarted
			if errors.As(err, &started) {
				return fmt.Errorf("an upgrade of %s is already running (workflow %s, run %s): watch it with `starter upgrade status --cluster %s --watch`",
					cluster, api.UpgradeID(cluster), started.RunId, cluster)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "started runtime upgrade of %s to %s: workflow %s run %s\n", cluster, version, run.GetID(), run.GetRunID())
			for _, n := range planNotes(p) {
				fmt.Fprintln(cmd.OutOrStdout(), n)
			}
			if !wait {
				return nil
			}
			return a.waitUpgrade(ctx, c, cmd, cluster, "table")
		},
	}
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().StringVar(&version, "version", "", "target runtime version, e.g. 4.2.0")
	sf.register(cmd)
	cmd.Flags().BoolVar(&wait, "wait", false, "wait until the upgrade ends or pauses, showing progress")
	cmd.Flags().DurationVar(&drain, "drain-timeout", 0, "drain limit per server (default: the site's timeouts.drain, 20m unless the inventory says otherwise)")
	cmd.Flags().DurationVar(&vms, "vm-shutdown-timeout", 0, "VM shutdown limit per server (default: the site's timeouts.vmShutdown, 10m unless the inventory says otherwise)")
	return cmd
}

func (a *app) upgradePlanCmd() *cobra.Command {
	var cluster, version, format, kubeconfig string
	var sf strategyFlags
	var perServer time.Duration
	cmd := &cobra.Command{
		Use:   "plan --cluster C --version V",
		Short: "Print what an upgrade would do, without doing it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := required(flag{"cluster", cluster}, flag{"version", version}); err != nil {
				return err
			}
			st, err := a.clusterState(cmd.Context(), cluster)
			if err != nil {
				return err
			}
			p, perr := upgradeplan.Build(st.Cluster, version, sf.value(), st.UpgradeTarget == version, planOptions(st, version)...)
			img, reached := askImage(cmd.Context(), st, version)
			out := struct {
				upgradeplan.Plan
				CriticalPath string         `json:"criticalPath"`
				PerServer    string         `json:"perServer"`
				Image        api.ImageCheck `json:"image"`
				// Capacity: each rack's first batch as the guard judges it now.
				Capacity []api.CapacityCheck `json:"capacity,omitempty"`
				// Firmware: per server, what the firmware step would apply.
				Firmware []plannedFirmware `json:"firmware,omitempty"`
				Problems string            `json:"problems,omitempty"`
			}{Plan: p, CriticalPath: p.CriticalPath(perServer).String(), PerServer: perServer.String(), Image: img}
			if perr == nil {
				out.Capacity = planCapacity(cmd.Context(), st, p, kubeconfig)
				out.Firmware = planFirmware(cmd.Context(), st, version)
			}
			if reached && !img.OK {
				perr = errors.Join(perr, errors.New(img.Refusal()))
			}
			if perr != nil {
				out.Problems = perr.Error()
			}
			notes := append(append([]string{imageNote(img, reached)}, capacityNotes(out.Capacity)...), firmwareNotes(version, out.Firmware)...)
			if err := writePlan(cmd.OutOrStdout(), format, out.Plan, perServer, out, notes...); err != nil {
				return err
			}
			if perr != nil {
				return fmt.Errorf("this upgrade would be refused:\n%w", perr)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().StringVar(&version, "version", "", "target runtime version")
	cmd.Flags().DurationVar(&perServer, "per-server", 45*time.Minute, "expected time of one server upgrade, for the critical-path estimate")
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig of the site, for the capacity verdicts (default: the site's kubeconfig as registered)")
	sf.register(cmd)
	outputFlag(cmd, &format)
	return cmd
}

func (a *app) upgradeStatusCmd() *cobra.Command {
	var cluster, format string
	var watch bool
	cmd := &cobra.Command{
		Use:   "status --cluster C",
		Short: "Show where the upgrade stands",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := required(flag{"cluster", cluster}); err != nil {
				return err
			}
			c, err := a.dial()
			if err != nil {
				return err
			}
			defer c.Close()
			if watch {
				return a.waitUpgrade(cmd.Context(), c, cmd, cluster, format)
			}
			st, err := upgradeStatus(cmd.Context(), c, cluster)
			if err != nil {
				return err
			}
			if err := writeUpgradeStatus(cmd.OutOrStdout(), format, st); err != nil || format != "table" {
				return err
			}
			printBuilds(cmd.Context(), cmd.OutOrStdout(), c, api.UpgradeID(cluster))
			return nil
		},
	}
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	cmd.Flags().BoolVar(&watch, "watch", false, "follow the upgrade until it ends (exit 0 or 2) or pauses (exit 3); with -o json|yaml progress goes to stderr, the last status to stdout")
	outputFlag(cmd, &format)
	return cmd
}

func (a *app) upgradeSteerCmd(update, verb, short string) *cobra.Command {
	var cluster, reason string
	cmd := &cobra.Command{
		Use:   verb + " --cluster C",
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := required(flag{"cluster", cluster}); err != nil {
				return err
			}
			c, ctx, done, err := a.session(cmd.Context(), 30*time.Second)
			if err != nil {
				return err
			}
			defer done()
			var args []any
			if update == api.UpdatePause {
				args = append(args, api.PauseRequest{Reason: reason})
			}
			h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: api.UpgradeID(cluster), UpdateName: update,
				WaitForStage: client.WorkflowUpdateStageCompleted, Args: args})
			if err != nil {
				// A finished (or never started) upgrade: say so plainly.
				if d, derr := c.DescribeWorkflowExecution(ctx, api.UpgradeID(cluster), ""); derr != nil {
					return fmt.Errorf("%s: there is no upgrade of %s (start one with `starter upgrade start`)", verb, cluster)
				} else if st := d.GetWorkflowExecutionInfo().GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
					return fmt.Errorf("%s: the last upgrade of %s is %s, not running: nothing to %s", verb, cluster,
						strings.ToLower(strings.TrimPrefix(st.String(), "WORKFLOW_EXECUTION_STATUS_")), verb)
				}
				return fmt.Errorf("%s upgrade of %s: %w", verb, cluster, err)
			}
			var msg string
			if err := h.Get(ctx, &msg); err != nil {
				return fmt.Errorf("%s upgrade of %s: %s", verb, cluster, temporalerr.Message(err))
			}
			fmt.Fprintln(cmd.OutOrStdout(), msg)
			return nil
		},
	}
	cmd.Flags().StringVar(&cluster, "cluster", "", "cluster name")
	if update == api.UpdatePause {
		cmd.Flags().StringVar(&reason, "reason", "", "why, shown with the pause (e.g. a change freeze)")
	}
	return cmd
}

func upgradeStatus(ctx context.Context, c client.Client, cluster string) (api.UpgradeStatus, error) {
	var st api.UpgradeStatus
	v, err := askWorkflow(ctx, c, api.UpgradeID(cluster), api.QueryStatus)
	switch {
	case err != nil && timedOut(err):
		return st, fmt.Errorf("the upgrade of %s did not show its status: %w", cluster, err)
	case err != nil:
		return st, fmt.Errorf("no upgrade of %s to show: %w", cluster, err)
	}
	return st, v.Get(&st)
}

func clusterStateWith(ctx context.Context, c client.Client, cluster string) (api.ClusterState, error) {
	var st api.ClusterState
	v, err := askWorkflow(ctx, c, api.ClusterID(cluster), api.QueryState)
	if err != nil {
		return st, fmt.Errorf("cluster %s: %w (registered? `starter cluster register --inventory FILE`)", cluster, err)
	}
	return st, v.Get(&st)
}

// planOptions plans as the workflow does (workflows/upgrade/plan.go): the
// version the cluster runs, with a firmware baseline, is a run for the
// firmware alone.
func planOptions(st api.ClusterState, version string) []upgradeplan.Option {
	if st.Cluster.RuntimeVersion == version && len(st.Firmware[version]) > 0 {
		return []upgradeplan.Option{upgradeplan.FirmwareRerun()}
	}
	return nil
}
