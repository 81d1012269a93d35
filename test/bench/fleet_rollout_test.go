package bench_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/fleet"
	"github.com/rackroll/rackroll/internal/model"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// The fleet's rollout: a canary site, then waves of fleetWaveSize sites,
// no bake (the benchmark measures orchestration, a bake is a timer).
const (
	fleetWaveSize = 3
	fleetBake     = 0 * time.Minute
	fleetVersion  = "4.2.0"
)

// fleetWaves is the rollout's plan: the first site alone, then the others
// fleetWaveSize at a time, in order.
func fleetWaves(sites []string) [][]string {
	waves := [][]string{sites[:1]}
	for rest := sites[1:]; len(rest) > 0; {
		n := min(fleetWaveSize, len(rest))
		waves = append(waves, rest[:n])
		rest = rest[n:]
	}
	return waves
}

// fleetRequest is what each site's upgrade is asked: the target, no wait
// between racks, the lab's short drain and VM shutdown limits.
func fleetRequest() (model.UpdateStrategy, time.Duration, time.Duration) {
	zero := 0
	return model.UpdateStrategy{WaitTimeMinutes: &zero}, 5 * time.Second, 5 * time.Second
}

// fleetName is the benchmark's fleet.
const fleetName = "bench"

// rollOut rolls fleetVersion over the sites with the fleet workflow, as
// `starter fleet create` and `starter fleet start` do: it creates the
// fleet (a canary, then waves of fleetWaveSize, bake fleetBake; the fleet
// reads its sites every second), sends the start Update, and returns when
// the fleet's status says Completed, or with the fleet's halt.
func rollOut(ctx context.Context, c client.Client, sites []string) error {
	spec := fleet.Spec{Name: fleetName, Clusters: sites, Canary: sites[:1], WaveSize: fleetWaveSize, BakeMinutes: int(fleetBake / time.Minute)}
	if err := fleet.Check(spec, sites); err != nil {
		return err
	}
	if _, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.FleetID(fleetName), TaskQueue: api.TaskQueue},
		api.FleetWorkflowName, api.FleetInput{Spec: spec, Tuning: api.FleetTuning{WatchEvery: time.Second}}); err != nil {
		return fmt.Errorf("create the fleet: %w", err)
	}
	strategy, drain, vms := fleetRequest()
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: api.FleetID(fleetName), UpdateName: api.UpdateFleetStart,
		WaitForStage: client.WorkflowUpdateStageCompleted, Args: []any{api.FleetStartRequest{TargetVersion: fleetVersion,
			UpdateStrategy: strategy, DrainTimeout: drain, VMShutdownTimeout: vms, By: "bench"}}})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	if err != nil {
		return fmt.Errorf("start the fleet's rollout: %w", err)
	}
	for {
		var st api.FleetStatus
		qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		v, err := c.QueryWorkflow(qctx, api.FleetID(fleetName), "", api.QueryStatus)
		if err == nil {
			err = v.Get(&st)
		}
		cancel()
		switch {
		case err != nil:
			// A central worker busy with the sites' tasks may answer late.
			fmt.Fprintf(os.Stderr, "fleet: query the fleet: %v\n", err)
		case st.State == fleet.StateCompleted:
			return nil
		case st.State == fleet.StateHalted || st.State == fleet.StateCancelled:
			return fmt.Errorf("the fleet is %s: %+v", st.State, st.Rollout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// rollOutByHand is the operator's script the benchmark ran before the
// fleet workflow existed: each wave's sites' upgrades started as `starter
// upgrade start` does, all waited for, a bake, the next wave. Kept to
// compare the fleet workflow's overhead with.
func rollOutByHand(ctx context.Context, c client.Client, sites []string) error {
	strategy, drain, vms := fleetRequest()
	for w, wave := range fleetWaves(sites) {
		for _, s := range wave {
			if _, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.UpgradeID(s), TaskQueue: api.TaskQueue,
				WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
				TypedSearchAttributes: temporal.NewSearchAttributes(saCluster.ValueSet(s), saOperation.ValueSet("runtime-upgrade"),
					saPhase.ValueSet(api.PhasePreflight))},
				api.RuntimeUpgradeWorkflowName, api.UpgradeInput{Cluster: s, TargetVersion: fleetVersion, UpdateStrategy: strategy,
					DrainTimeout: drain, VMShutdownTimeout: vms}); err != nil {
				return fmt.Errorf("wave %d: start the upgrade of %s: %w", w, s, err)
			}
		}
		for _, s := range wave {
			if err := waitUpgrade(ctx, c, s); err != nil {
				return fmt.Errorf("wave %d: %w", w, err)
			}
		}
		time.Sleep(fleetBake)
	}
	return nil
}

// waitUpgrade polls the site's upgrade every second until it closes, then
// reads its result: anything but a running cluster is a failure.
func waitUpgrade(ctx context.Context, c client.Client, site string) error {
	for {
		d, err := c.DescribeWorkflowExecution(ctx, api.UpgradeID(site), "")
		if err == nil && d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the upgrade of %s: %w", site, ctx.Err())
		case <-time.After(time.Second):
		}
	}
	var st api.UpgradeStatus
	if err := c.GetWorkflow(ctx, api.UpgradeID(site), "").Get(ctx, &st); err != nil {
		return fmt.Errorf("the upgrade of %s: %w", site, err)
	}
	if st.DetailedStatus != model.ClusterRunning {
		return fmt.Errorf("the upgrade of %s ended %s: %s", site, st.DetailedStatus, st.DetailedStatusMessage)
	}
	return nil
}

// criticalPath is the rollout's critical path: per wave, its slowest
// site's upgrade, from the site workflow's own start and close times, plus
// the bake after each wave but the last. It also returns each site's time.
func criticalPath(ctx context.Context, c client.Client, sites []string) (time.Duration, map[string]time.Duration, error) {
	var total time.Duration
	each := map[string]time.Duration{}
	waves := fleetWaves(sites)
	for w, wave := range waves {
		var slowest time.Duration
		for _, s := range wave {
			d, err := c.DescribeWorkflowExecution(ctx, api.UpgradeID(s), "")
			if err != nil {
				return 0, nil, err
			}
			info := d.GetWorkflowExecutionInfo()
			each[s] = info.GetCloseTime().AsTime().Sub(info.GetStartTime().AsTime())
			slowest = max(slowest, each[s])
		}
		total += slowest
		if w < len(waves)-1 {
			total += fleetBake
		}
	}
	return total, each, nil
}
