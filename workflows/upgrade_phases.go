package workflows

import (
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/metrics"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"go.temporal.io/sdk/workflow"
)

// controlPlane upgrades the KCP servers serially. Each step holds a
// disruption lease, so never more than one control-plane server is out;
// the spare joins before any active KCP leaves, so the active count never
// drops below the table's. Any failure fails the upgrade.
func (u *upgrade) controlPlane(ctx workflow.Context) error {
	u.setPhase(ctx, api.PhaseControlPlane)
	unit := &u.st.ControlPlane
	u.startUnit(ctx, unit)
	for i, step := range u.plan.ControlPlane {
		if step.Skip {
			unit.Succeeded++
			continue
		}
		unit.Servers[i].State = api.StateRunning
		u.show(ctx)
		if step.Action == upgradeplan.KCPRetire {
			// The last KCP leaves the control plane and waits as the new
			// spare, on the version it has (reference 002: expected).
			err := u.record(ctx, api.BMMPatch{BMM: step.BMM, Roles: []model.Role{model.RoleKCPSpare},
				DetailedStatus: api.Str(model.BMMAvailable)})
			if err != nil {
				return u.serverFailed(ctx, unit, i, fmt.Sprintf("KCP %s could not retire to spare: %v", step.BMM, err))
			}
			u.serverDone(ctx, unit, i)
			continue
		}
		in := u.server
		in.BMM, in.Mode = step.BMM, string(step.Action)
		var res api.ServerResult
		err := workflow.ExecuteChildWorkflow(childOpts(ctx, api.ServerUpgradeID(u.in.Cluster, step.BMM),
			fmt.Sprintf("Upgrade KCP %s to %s (%s)", step.BMM, u.in.TargetVersion, step.Action), serverDetails(in)),
			api.ServerUpgradeWorkflowName, in).Get(ctx, &res)
		if err == nil && !res.Succeeded {
			err = fmt.Errorf("%s", res.Error)
		}
		if err != nil {
			return u.serverFailed(ctx, unit, i, fmt.Sprintf("KCP %s failed to upgrade: %v", step.BMM, err))
		}
		if step.Action == upgradeplan.KCPUpgradeSpare {
			// The upgraded spare joins the control plane.
			if err := u.record(ctx, api.BMMPatch{BMM: step.BMM, Roles: []model.Role{model.RoleKCP}}); err != nil {
				return u.serverFailed(ctx, unit, i, fmt.Sprintf("spare %s could not join the control plane: %v", step.BMM, err))
			}
		}
		u.serverDone(ctx, unit, i)
	}
	u.endUnit(ctx, unit, api.StateSucceeded)
	return nil
}

// management upgrades group a then group b, each in two stages; a group
// below 50 % success pauses the upgrade. It returns done=true when the
// operator cancelled.
func (u *upgrade) management(ctx workflow.Context) (bool, error) {
	u.setPhase(ctx, api.PhaseManagement)
	for gi, g := range u.plan.Management {
		unit := &u.st.ManagementGroups[gi]
		u.startUnit(ctx, unit)
		for si, stage := range g.Stages {
			if u.cancelled {
				u.endUnit(ctx, unit, api.StateCancelled)
				return true, nil
			}
			id := api.RackUpgradeID(u.in.Cluster, fmt.Sprintf("management-%s-stage%d", g.Name, si+1))
			rack := upgradeplan.Rack{Name: fmt.Sprintf("management group %s stage %d", g.Name, si+1), Servers: stage, Parallel: len(stage)}
			res, err := u.runUnit(ctx, id, rack, unit)
			if err != nil {
				return false, err
			}
			_ = res
		}
		if unit.Succeeded < unit.Required {
			u.endUnit(ctx, unit, api.StatePaused)
			msg := fmt.Sprintf("management group %s: %d of %d servers upgraded, %d needed (50 %%); failed: %s. Fix them, then continue-update or cancel-update",
				g.Name, unit.Succeeded, unit.Total, unit.Required, failedNames(unit))
			if cancelled, err := u.pause(ctx, unit, msg); err != nil || cancelled {
				return cancelled, err
			}
			unit.State = api.StateFailed
			continue
		}
		u.endUnit(ctx, unit, api.StateSucceeded)
	}
	return false, nil
}

// compute upgrades the racks in natural order, one at a time.
func (u *upgrade) compute(ctx workflow.Context) (bool, error) {
	u.setPhase(ctx, api.PhaseCompute)
	for ri, r := range u.plan.Racks {
		if u.cancelled {
			return true, nil
		}
		unit := &u.st.Racks[ri]
		u.startUnit(ctx, unit)
		if _, err := u.runUnit(ctx, api.RackUpgradeID(u.in.Cluster, r.Name), r, unit); err != nil {
			return false, err
		}
		last := ri == len(u.plan.Racks)-1
		metrics.RackUpgraded(workflow.GetMetricsHandler(ctx), u.in.Cluster, unit.Succeeded >= unit.Required)
		if unit.Succeeded < unit.Required {
			u.endUnit(ctx, unit, api.StatePaused)
			msg := fmt.Sprintf("rack %s missed its threshold: %d of %d servers upgraded, %d needed; failed: %s. Continue-update to go on, cancel-update to stop",
				r.Name, unit.Succeeded, unit.Total, unit.Required, failedNames(unit))
			if cancelled, err := u.pause(ctx, unit, msg); err != nil || cancelled {
				return cancelled, err
			}
			unit.State = api.StateFailed
		} else {
			u.endUnit(ctx, unit, api.StateSucceeded)
		}
		if last {
			break
		}
		// Extra time for workloads to come back before the next rack.
		if w := u.plan.Strategy.Wait(); w > 0 {
			u.st.DetailedStatusMessage = fmt.Sprintf("rack %s done; waiting %v before the next rack", r.Name, w)
			if _, err := workflow.AwaitWithTimeout(ctx, w, func() bool { return u.cancelled }); err != nil {
				return false, err
			}
		}
		if u.plan.Strategy.StrategyType == model.StrategyPauseAfterRack && !u.cancelled {
			msg := fmt.Sprintf("rack %s done (%d of %d upgraded); paused after the rack: continue-update to start rack %s",
				r.Name, unit.Succeeded, unit.Total, u.plan.Racks[ri+1].Name)
			if cancelled, err := u.pause(ctx, unit, msg); err != nil || cancelled {
				return cancelled, err
			}
		}
	}
	return u.cancelled, nil
}

// runUnit runs one rack (or management stage) as a child workflow and folds
// its result into unit. A cancel request is passed on to the child, which
// then starts no new servers.
func (u *upgrade) runUnit(ctx workflow.Context, id string, r upgradeplan.Rack, unit *api.UnitStatus) (api.RackResult, error) {
	u.st.CurrentRun = id
	defer func() { u.st.CurrentRun = ""; u.show(ctx) }()
	for _, s := range r.Servers {
		setServer(unit, s, api.StateRunning, "")
	}
	u.show(ctx)
	cctx, cancelWatch := workflow.WithCancel(ctx)
	fut := workflow.ExecuteChildWorkflow(childOpts(ctx, id, fmt.Sprintf("Upgrade %s to %s", r.Name, u.in.TargetVersion),
		fmt.Sprintf("%d servers, up to %d at a time, %d must succeed: %s", len(r.Servers), r.Parallel, unit.Required, strings.Join(r.Servers, ", "))),
		api.RackUpgradeWorkflowName, api.RackInput{Cluster: u.in.Cluster, Rack: r, Server: u.server})
	workflow.Go(cctx, func(gctx workflow.Context) {
		if workflow.Await(gctx, func() bool { return u.cancelled }) == nil {
			fut.SignalChildWorkflow(gctx, api.SignalCancel, nil)
		}
	})
	var res api.RackResult
	err := fut.Get(ctx, &res)
	cancelWatch()
	if err != nil {
		return res, fmt.Errorf("%s: %w", r.Name, err)
	}
	for _, s := range res.Servers {
		setServer(unit, s.Name, s.State, s.Error)
		switch s.State {
		case api.StateSucceeded:
			unit.Succeeded++
		case api.StateFailed:
			unit.Failed++
		}
	}
	return res, nil
}

func (u *upgrade) record(ctx workflow.Context, p api.BMMPatch) error {
	return ledgerOf(u.in.Cluster).record(ctx, p)
}

func (u *upgrade) startUnit(ctx workflow.Context, unit *api.UnitStatus) {
	now := workflow.Now(ctx)
	unit.State, unit.StartedAt = api.StateRunning, &now
	u.show(ctx)
}

func (u *upgrade) endUnit(ctx workflow.Context, unit *api.UnitStatus, state string) {
	now := workflow.Now(ctx)
	unit.State, unit.FinishedAt = state, &now
	u.show(ctx)
}

func (u *upgrade) serverDone(ctx workflow.Context, unit *api.UnitStatus, i int) {
	unit.Servers[i].State = api.StateSucceeded
	unit.Succeeded++
	u.show(ctx)
}

func (u *upgrade) serverFailed(ctx workflow.Context, unit *api.UnitStatus, i int, msg string) error {
	unit.Servers[i].State, unit.Servers[i].Error = api.StateFailed, msg
	unit.Failed++
	u.endUnit(ctx, unit, api.StateFailed)
	return fmt.Errorf("%s", msg)
}

func setServer(unit *api.UnitStatus, name, state, errMsg string) {
	for i := range unit.Servers {
		if unit.Servers[i].Name == name {
			unit.Servers[i].State, unit.Servers[i].Error = state, errMsg
		}
	}
}

func failedNames(unit *api.UnitStatus) string {
	var out []string
	for _, s := range unit.Servers {
		if s.State == api.StateFailed {
			out = append(out, s.Name)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}
