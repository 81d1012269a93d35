package upgrade

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/metrics"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/rackroll/rackroll/workflows/kernel"
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
	for _, step := range u.plan.ControlPlane {
		if step.Skip {
			continue // counted Skipped by SetUnits
		}
		if cancelled, err := u.gateKCPStep(ctx, unit, step); err != nil || cancelled {
			if cancelled {
				// management sees u.cancelled and ends the upgrade there.
				u.endUnit(ctx, unit, api.StateCancelled)
			}
			return err
		}
		u.serverState(ctx, unit, step.BMM, api.StateRunning)
		if step.Action == upgradeplan.KCPRetire {
			// The last KCP leaves the control plane and waits as the new
			// spare, on the version it has (docs/behaviour-upgrade.md#upgrade: expected).
			if err := u.retire(ctx, step.BMM); err != nil {
				return u.serverFailed(ctx, unit, step.BMM, fmt.Sprintf("KCP %s could not retire to spare: %v", step.BMM, err))
			}
			u.serverState(ctx, unit, step.BMM, api.StateSucceeded)
			continue
		}
		in := u.server
		in.BMM, in.Mode = step.BMM, string(step.Action)
		res, err := u.kcpChild(ctx, unit, step, in)
		if err == nil && u.cancelled && res.Gated {
			u.endUnit(ctx, unit, api.StateCancelled)
			return nil
		}
		if err == nil && !res.Succeeded {
			err = fmt.Errorf("%s", res.Error)
		}
		if err != nil {
			return u.serverFailed(ctx, unit, step.BMM, fmt.Sprintf("KCP %s failed to upgrade: %v", step.BMM, err))
		}
		if step.Action == upgradeplan.KCPUpgradeSpare {
			// The upgraded spare joins the control plane.
			if err := u.record(ctx, api.BMMPatch{BMM: step.BMM, Roles: []model.Role{model.RoleKCP}}); err != nil {
				return u.serverFailed(ctx, unit, step.BMM, fmt.Sprintf("spare %s could not join the control plane: %v", step.BMM, err))
			}
			if err := u.awaitMember(ctx, step.BMM); err != nil {
				return u.serverFailed(ctx, unit, step.BMM, fmt.Sprintf("spare %s joined the control plane but %v", step.BMM, err))
			}
		}
		u.serverState(ctx, unit, step.BMM, api.StateSucceeded)
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
		if finished(unit.State) {
			continue // a moved run: this group finished on the build before
		}
		prev := &u.st.ControlPlane
		if gi > 0 {
			prev = &u.st.ManagementGroups[gi-1]
		}
		if cancelled, err := u.holdBefore(ctx, prev, api.Unit{Kind: api.UnitManagement, UnitStatus: unit}.Label()); err != nil || cancelled {
			return cancelled, err
		}
		// Between two groups: nothing of the run in flight.
		if gi > 0 {
			if err := u.moveBefore(ctx); err != nil {
				return false, err
			}
		}
		u.startUnit(ctx, unit)
		for si, stage := range g.Stages {
			if u.cancelled {
				u.endUnit(ctx, unit, api.StateCancelled)
				return true, nil
			}
			id := u.unitID(ctx, fmt.Sprintf("management-%s-stage%d", g.Name, si+1))
			rack := upgradeplan.Rack{Name: fmt.Sprintf("management group %s stage %d", g.Name, si+1), Servers: stage, Parallel: len(stage)}
			if cancelled, err := u.drainAndRun(ctx, id, rack, unit); err != nil || cancelled {
				if cancelled {
					unit.CancelPending()
					u.endUnit(ctx, unit, api.StateCancelled)
				}
				return cancelled, err
			}
			if si == len(g.Stages)-1 || workflow.GetVersion(ctx, changeManagementStageNeedsThreshold, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
				continue
			}
			if msg := unit.Unreachable(si + 2); msg != "" {
				unit.State = api.StatePaused
				cancelled, err := u.pause(ctx, unit, msg)
				if err != nil {
					return false, err
				}
				if cancelled {
					u.endUnit(ctx, unit, api.StateCancelled)
					return true, nil
				}
				unit.State = api.StateRunning
			}
		}
		if cancelled, err := u.settle(ctx, unit, unit.Missed(true)); err != nil || cancelled {
			return cancelled, err
		}
	}
	return false, nil
}

// compute upgrades the racks in natural order, one at a time.
func (u *upgrade) compute(ctx workflow.Context) (bool, error) {
	u.setPhase(ctx, api.PhaseCompute)
	canary := u.canary(ctx)
	for ri, r := range u.plan.Racks {
		unit := &u.st.Racks[ri]
		// A run moved to this build goes on where the last one paused.
		at := resumeAt(u.carried(), unit)
		switch at {
		case "done":
			continue
		case "settle":
			// The missed threshold's pause, as settle has it.
			if cancelled, err := u.atBoundary(ctx, unit, u.in.Carry.PauseMessage); err != nil || cancelled {
				return cancelled, err
			}
			unit.State = api.StateFailed
		case "":
			if cancelled, err := u.resumeWait(ctx, ri); err != nil || cancelled {
				return cancelled, err
			}
			if u.cancelled {
				return true, nil
			}
			if cancelled, err := u.holdBefore(ctx, u.unitBefore(ri), "rack "+r.Name); err != nil || cancelled {
				return cancelled, err
			}
			// A rack boundary: nothing of the run in flight.
			if err := u.moveBefore(ctx); err != nil {
				return false, err
			}
			u.startUnit(ctx, unit)
			if cancelled, err := u.runRack(ctx, r, unit, canary); err != nil || cancelled {
				if cancelled {
					unit.CancelPending()
					u.endUnit(ctx, unit, api.StateCancelled)
				}
				return cancelled, err
			}
			metrics.RackUpgraded(workflow.GetMetricsHandler(ctx), u.in.Cluster, unit.Met())
			if cancelled, err := u.settle(ctx, unit, unit.Missed(false)); err != nil || cancelled {
				return cancelled, err
			}
		}
		if ri == len(u.plan.Racks)-1 {
			break
		}
		// Extra time for workloads to come back before the next rack.
		if w := u.plan.Strategy.Wait(); w > 0 && at != "after" {
			u.st.DetailedStatusMessage = fmt.Sprintf("rack %s done; waiting %v before the next rack", r.Name, w)
			if err := u.waitBetween(ctx, w, u.plan.Racks[ri+1].Name); err != nil {
				return false, err
			}
		}
		if cancelled, err := u.afterRack(ctx, unit, u.plan.Racks[ri+1].Name, at); err != nil || cancelled {
			return cancelled, err
		}
	}
	return u.cancelled, nil
}

// settle ends a finished management group or rack: Succeeded when it met
// its threshold (missed is ""), else Paused with missed until the operator
// continues (the unit stays Failed) or cancels (true).
func (u *upgrade) settle(ctx workflow.Context, unit *api.UnitStatus, missed string) (bool, error) {
	if missed == "" {
		u.endUnit(ctx, unit, api.StateSucceeded)
		return false, nil
	}
	u.endUnit(ctx, unit, api.StatePaused)
	if cancelled, err := u.atBoundary(ctx, unit, missed); err != nil || cancelled {
		return cancelled, err
	}
	unit.State = api.StateFailed
	return false, nil
}

// runUnit runs one rack (or management stage) as a child workflow, which
// reports its servers into unit as they change, then folds in its result.
// A cancel request is passed on to the child, which then starts no new
// servers.
func (u *upgrade) runUnit(ctx workflow.Context, id string, r upgradeplan.Rack, unit *api.UnitStatus, capacity *api.CapacityAsk) (api.RackResult, error) {
	u.st.CurrentRun, u.current = id, unit
	defer func() { u.st.CurrentRun, u.current = "", nil; u.show(ctx) }()
	// The child starts these at once; it reports the rest (rackReport).
	for _, s := range r.FirstWave() {
		unit.Apply(api.ServerStatus{Name: s, State: api.StateRunning})
	}
	u.show(ctx)
	cctx, cancelWatch := workflow.WithCancel(ctx)
	fut := workflow.ExecuteChildWorkflow(childOpts(ctx, u.in.Cluster, id, fmt.Sprintf("Upgrade %s to %s", r.Name, u.in.TargetVersion),
		fmt.Sprintf("%d servers, up to %d at a time, %d must succeed: %s", len(r.Servers), r.Parallel, unit.Required, strings.Join(r.Servers, ", ")),
		rackRun(r, u.server)),
		api.RackUpgradeWorkflowName, api.RackInput{Cluster: u.in.Cluster, Rack: r, Server: u.server, Capacity: capacity})
	workflow.Go(cctx, func(gctx workflow.Context) {
		if workflow.Await(gctx, func() bool { return u.cancelled }) == nil {
			fut.SignalChildWorkflow(gctx, api.SignalCancel, nil)
			// The unit's servers this child does not run (after a canary)
			// will not start either.
			for _, s := range unit.Servers {
				if s.State == api.StatePending && !slices.Contains(r.Servers, s.Name) {
					unit.Apply(api.ServerStatus{Name: s.Name, State: api.StateCancelled})
				}
			}
			u.show(gctx)
		}
	})
	var res api.RackResult
	err := fut.Get(ctx, &res)
	cancelWatch()
	if err != nil {
		return res, fmt.Errorf("%s: %w", r.Name, err)
	}
	if res.Capacity != nil {
		u.noteCapacity(ctx, id, *res.Capacity)
	}
	if res.Held {
		unit.Unstart(r.FirstWave()...)
	}
	unit.Apply(res.Servers...)
	return res, nil
}

func (u *upgrade) record(ctx workflow.Context, p api.BMMPatch) error {
	return kernel.LedgerOf(u.in.Cluster).Record(ctx, p)
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

// serverState records a control-plane server's progress.
func (u *upgrade) serverState(ctx workflow.Context, unit *api.UnitStatus, bmm, state string) {
	unit.Apply(api.ServerStatus{Name: bmm, State: state})
	u.show(ctx)
}

func (u *upgrade) serverFailed(ctx workflow.Context, unit *api.UnitStatus, bmm, msg string) error {
	unit.Apply(api.ServerStatus{Name: bmm, State: api.StateFailed, Error: msg})
	u.endUnit(ctx, unit, api.StateFailed)
	return fmt.Errorf("%s", msg)
}

// unitID names the child that runs a rack or a management stage. Version 1
// keeps it apart from the servers' ids (api.RackUpgradeID has a "unit:"
// segment no BMM name can have), so a rack named like a server cannot
// collide with it; older histories used "upgrade:<cluster>:<name>".
func (u *upgrade) unitID(ctx workflow.Context, name string) string {
	if workflow.GetVersion(ctx, changeUnitIdsApart, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return "upgrade:" + u.in.Cluster + ":" + name
	}
	return api.RackUpgradeID(u.in.Cluster, name)
}
