package upgrade

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/rackroll/rackroll/workflows/kernel"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// RuntimeUpgradeWorkflow upgrades a cluster to a new runtime (see
// docs/behaviour-upgrade.md#upgrade): first the control plane, one server at a time with the spare first;
// then the management servers, group a then b, each in two stages with a
// 50 % threshold; then the compute racks one at a time in natural order,
// each meeting its threshold, with the wait timer after each rack and an
// optional pause. A rack that misses its threshold pauses the upgrade until
// the operator continues or cancels it.
func RuntimeUpgradeWorkflow(ctx workflow.Context, in api.UpgradeInput) (api.UpgradeStatus, error) {
	if in.Carry != nil {
		kernel.TakeCarry(ctx, "RuntimeUpgradeWorkflow", in.Carry.CarryHeader)
	}
	// The run's ledger calls are local activities: a read or record on the
	// serial path then costs one Update, not two more trips through the
	// server (kernel.LocalLedger).
	if workflow.GetVersion(ctx, changeLedgerLocal, workflow.DefaultVersion, 1) == 1 {
		ctx = kernel.LocalLedger(ctx)
	}
	// A run moved at a pause restores it: a continue that comes first is
	// taken, not refused (restoring).
	u := &upgrade{in: in, restoring: in.Carry != nil && in.Carry.PausedAt != ""}
	if c := in.Carry; c != nil {
		u.asked, u.heldFor = c.Asked, c.HeldFor // the operator's word, moved with the run
	}
	u.st = api.UpgradeStatus{Cluster: in.Cluster, TargetVersion: in.TargetVersion, Strategy: in.UpdateStrategy,
		Phase: api.PhasePreflight, DetailedStatus: model.ClusterUpdating, StartedAt: workflow.Now(ctx)}
	if err := u.handlers(ctx); err != nil {
		return u.st, err
	}
	// Preflight: everything is checked before the first side effect.
	cs, err := kernel.LedgerOf(in.Cluster).Read(ctx)
	if err != nil {
		return u.fail(ctx, false, fmt.Sprintf("preflight: %v", err))
	}
	// A run that moved to this build goes on with the plan and the status
	// it carried (moves.go): nothing is planned or checked again.
	c := u.carried()
	if c == nil {
		p, err := u.planFrom(ctx, cs)
		if err != nil {
			return u.fail(ctx, false, "preflight: "+err.Error())
		}
		u.plan = p
		u.st.Plan = &p
		u.st.SetUnits(p)
	} else {
		u.plan, u.st = *c.Status.Plan, c.Status
	}
	u.server = api.ServerInput{Cluster: in.Cluster, TargetVersion: in.TargetVersion,
		ImageURL:     strings.ReplaceAll(cmp.Or(in.ImageURLTemplate, cs.ImageURLTemplate), "{version}", in.TargetVersion),
		DrainTimeout: in.DrainTimeout, VMShutdownTimeout: in.VMShutdownTimeout}
	u.nodeOf, u.siteQueue, u.capacityOf = map[string]string{}, cs.SiteTaskQueue, map[string]bool{}
	for _, b := range cs.Cluster.BMMs {
		u.nodeOf[b.Name] = b.NodeName
	}
	if kernel.TableBounds(ctx) {
		// One table for the whole run: the children's run limits are
		// derived from the limits their servers run with.
		t := cs.Limits()
		u.server.Limits = &t
	}
	if c != nil {
		// Moved between management groups, or in the compute phase: the
		// control plane (and the groups before) finished before it.
		if c.Status.Phase == api.PhaseManagement {
			if done, err := u.management(ctx); err != nil || done {
				return u.finish(ctx, err)
			}
		}
		if done, err := u.compute(ctx); err != nil || done {
			return u.finish(ctx, err)
		}
		u.setPhase(ctx, api.PhaseDone)
		return u.finish(ctx, nil)
	}
	if workflow.GetVersion(ctx, changeImagePreflight, workflow.DefaultVersion, 1) == 1 {
		if msg := u.checkImage(ctx, cs); msg != "" {
			return u.fail(ctx, false, "preflight: "+msg)
		}
	}
	if workflow.GetVersion(ctx, changeVersionSourcePreflight, workflow.DefaultVersion, 1) == 1 {
		if msg := u.checkVersionSource(ctx, cs); msg != "" {
			return u.fail(ctx, false, "preflight: "+msg)
		}
	}
	if err := u.setCluster(ctx, model.ClusterUpdating, "Runtime upgrade to "+in.TargetVersion+" in progress"); err != nil {
		return u.fail(ctx, false, err.Error())
	}

	if err := u.controlPlane(ctx); err != nil {
		return u.fail(ctx, true, err.Error())
	}
	if done, err := u.management(ctx); err != nil || done {
		return u.finish(ctx, err)
	}
	if done, err := u.compute(ctx); err != nil || done {
		return u.finish(ctx, err)
	}
	u.setPhase(ctx, api.PhaseDone)
	return u.finish(ctx, nil)
}

type upgrade struct {
	in     api.UpgradeInput
	st     api.UpgradeStatus
	plan   upgradeplan.Plan
	server api.ServerInput
	// nodeOf maps a BMM to its node; siteQueue is where site activities run.
	nodeOf    map[string]string
	siteQueue string
	// capacityOf: the rack children whose capacity check is in the status.
	capacityOf map[string]bool

	// current is the unit whose rack or stage child (st.CurrentRun) is in
	// flight: its reports fold into it.
	current *api.UnitStatus

	paused    bool
	continued bool
	cancelled bool
	// restoring: a moved run has not reached the pause it carried yet; a
	// continue meanwhile ends that pause at once (pause).
	restoring bool
	// midRack: a pause inside a rack (the canary's), not a safe point.
	midRack bool
	// declined: this run's history said not to move (moves.go).
	declined bool
	// asked: the operator's pause before the next unit, with its reason;
	// holding: the pause now is that one, asked as heldFor (hold.go).
	asked, heldFor string
	holding        bool
	// movesHere: the pause now is a move point (the status says so).
	movesHere bool
}

func (u *upgrade) handlers(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, api.QueryStatus, func() (api.UpgradeStatus, error) { return u.withNextMove(ctx), nil }); err != nil {
		return err
	}
	onContinue := func() { u.continued = true }
	onCancel := func() { u.cancelled = true }
	if err := workflow.SetUpdateHandlerWithOptions(ctx, api.UpdateContinue, func(ctx workflow.Context) (string, error) {
		if !u.paused && !u.restoring {
			return u.withdraw(), nil
		}
		onContinue()
		return "continuing: " + u.st.DetailedStatusMessage, nil
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context) error {
		if !u.paused && !u.restoring && u.asked == "" {
			return fmt.Errorf("upgrade of %s is not paused (phase %s, %s): nothing to continue", u.in.Cluster, u.st.Phase, u.st.DetailedStatus)
		}
		return nil
	}}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, api.UpdateCancel, func(ctx workflow.Context) (string, error) {
		onCancel()
		return "cancelling after the servers in flight", nil
	}, workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context) error {
		if u.st.Phase == api.PhaseDone {
			return fmt.Errorf("upgrade of %s is done: nothing to cancel", u.in.Cluster)
		}
		if u.cancelled {
			return fmt.Errorf("upgrade of %s is already cancelling", u.in.Cluster)
		}
		return nil
	}}); err != nil {
		return err
	}
	if err := u.onPause(ctx); err != nil {
		return err
	}
	kernel.TakeWakes(ctx) // a paused run's task on which it moves
	// A rack child reports its servers as they start and finish.
	workflow.Go(ctx, func(ctx workflow.Context) {
		ch := workflow.GetSignalChannel(ctx, api.SignalRackProgress)
		for {
			var p api.RackProgress
			ch.Receive(ctx, &p)
			if p.Run != u.st.CurrentRun {
				continue // a child that has already ended: its result says it all
			}
			if u.current != nil {
				u.current.Apply(p.Servers...)
				u.show(ctx)
			}
			if p.Capacity != nil {
				u.noteCapacity(ctx, p.Run, *p.Capacity)
			}
		}
	})
	// The same two verbs as signals, for the `temporal workflow signal` habit.
	workflow.Go(ctx, func(ctx workflow.Context) {
		cont := workflow.GetSignalChannel(ctx, api.SignalContinue)
		canc := workflow.GetSignalChannel(ctx, api.SignalCancel)
		for {
			sel := workflow.NewSelector(ctx)
			sel.AddReceive(cont, func(c workflow.ReceiveChannel, _ bool) {
				c.Receive(ctx, nil)
				if u.paused || u.restoring {
					onContinue()
				}
			})
			sel.AddReceive(canc, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil); onCancel() })
			sel.Select(ctx)
		}
	})
	return nil
}

func (u *upgrade) setPhase(ctx workflow.Context, phase string) {
	u.st.Phase = phase
	u.show(ctx)
	// Kept current so `RackrollCluster="c" AND RackrollPhase="Compute"` finds
	// the running upgrade, however it was started.
	_ = workflow.UpsertTypedSearchAttributes(ctx,
		temporal.NewSearchAttributeKeyKeyword(api.SearchAttrCluster).ValueSet(u.in.Cluster),
		temporal.NewSearchAttributeKeyKeyword(api.SearchAttrOperation).ValueSet("runtime-upgrade"),
		temporal.NewSearchAttributeKeyKeyword(api.SearchAttrPhase).ValueSet(phase))
}

func (u *upgrade) setCluster(ctx workflow.Context, status, msg string) error {
	u.st.DetailedStatus, u.st.DetailedStatusMessage = status, msg
	u.show(ctx)
	p := api.ClusterStatusPatch{DetailedStatus: status, DetailedStatusMessage: msg}
	if status == model.ClusterUpdating {
		p.UpgradeTarget = u.in.TargetVersion
	}
	return kernel.LedgerOf(u.in.Cluster).SetStatus(ctx, p)
}

// fail ends the upgrade as Failed. Before any side effect (touched false)
// the cluster is left as it was.
func (u *upgrade) fail(ctx workflow.Context, touched bool, msg string) (api.UpgradeStatus, error) {
	u.st.DetailedStatus, u.st.DetailedStatusMessage = model.ClusterFailed, msg
	now := workflow.Now(ctx)
	u.st.FinishedAt = &now
	u.show(ctx)
	if touched {
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		_ = kernel.LedgerOf(u.in.Cluster).SetStatus(dctx, api.ClusterStatusPatch{DetailedStatus: model.ClusterFailed, DetailedStatusMessage: msg})
		// Failed, servers may still have been reinstalled: their keys again.
		if workflow.GetVersion(ctx, changeKeysAfterFailure, workflow.DefaultVersion, 1) == 1 {
			u.reestablishKeys(dctx)
			u.show(ctx)
		}
	}
	return u.st, temporal.NewNonRetryableApplicationError(msg, "UpgradeFailed", nil)
}

// cancelUnstarted marks the units a cancel left unstarted Cancelled, with
// their servers: a cancelled upgrade's status shows nothing still to come.
func (u *upgrade) cancelUnstarted() {
	for _, unit := range u.st.Units() {
		if unit.State == "" || unit.State == api.StatePending {
			unit.CancelPending()
			unit.State = api.StateCancelled
		}
	}
}

// finish returns the cluster to Running: at the target when every phase
// completed, at its old version (mixed) when the operator cancelled or
// servers failed (leftBehind).
func (u *upgrade) finish(ctx workflow.Context, err error) (api.UpgradeStatus, error) {
	if isMove(err) {
		return u.st, err // it goes on on the new build
	}
	if err != nil {
		return u.fail(ctx, true, err.Error())
	}
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	p := api.ClusterStatusPatch{DetailedStatus: model.ClusterRunning, ClearUpgrade: true}
	if u.cancelled {
		p.DetailedStatusMessage = "Runtime upgrade to " + u.in.TargetVersion + " cancelled by the operator; servers keep the version they reached"
		u.st.DetailedStatus = api.StateCancelled
		u.cancelUnstarted()
	} else {
		p.RuntimeVersion = u.in.TargetVersion
		p.DetailedStatusMessage = "Runtime upgrade to " + u.in.TargetVersion + " completed"
		u.st.DetailedStatus = model.ClusterRunning
		u.leftBehind(ctx, &p)
	}
	u.st.DetailedStatusMessage = p.DetailedStatusMessage
	now := workflow.Now(ctx)
	u.st.FinishedAt = &now
	u.show(ctx)
	if err := kernel.LedgerOf(u.in.Cluster).SetStatus(dctx, p); err != nil {
		return u.st, err
	}
	// Completed or cancelled, servers were reinstalled: their keys again.
	u.reestablishKeys(dctx)
	u.show(ctx)
	return u.st, nil
}

// pause waits for continue-update or cancel-update after unit. It returns
// true when the operator cancelled.
func (u *upgrade) pause(ctx workflow.Context, unit *api.UnitStatus, msg string) (bool, error) {
	// A continue taken while a moved run restored this pause ends it.
	early := u.restoring && u.continued
	u.paused, u.continued, u.restoring = true, early, false
	if err := u.setCluster(ctx, model.ClusterUpdatePaused, msg); err != nil {
		return false, err
	}
	// A compute pause is where the run moves to a new current build.
	movable := u.movable(unit) && !u.midRack
	u.movesHere = movable
	for {
		if err := workflow.Await(ctx, func() bool { return u.continued || u.cancelled || movable && u.newBuild(ctx) }); err != nil {
			return false, err
		}
		if u.continued || u.cancelled {
			break
		}
		if err := u.moveAt(ctx, unit, msg); err != nil {
			return false, err
		}
	}
	// The continue is spent: left set, it would keep every later move
	// point from moving (move).
	u.paused, u.continued, u.movesHere = false, false, false
	if u.cancelled {
		return true, nil
	}
	now := workflow.Now(ctx)
	unit.ContinuedAt = &now
	return false, u.setCluster(ctx, model.ClusterUpdating, "Runtime upgrade to "+u.in.TargetVersion+" in progress")
}

// childOpts are a child's options; run is the run limit derived for it
// (run_limits.go), 0 in runs started before the table bounded it.
func childOpts(ctx workflow.Context, cluster, id, summary, details string, run time.Duration) workflow.Context {
	return workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:    id,
		TaskQueue:     api.TaskQueue,
		StaticSummary: summary,
		StaticDetails: details,
		// Children are found by the same filters as their upgrade.
		TypedSearchAttributes: temporal.NewSearchAttributes(
			temporal.NewSearchAttributeKeyKeyword(api.SearchAttrCluster).ValueSet(cluster),
			temporal.NewSearchAttributeKeyKeyword(api.SearchAttrOperation).ValueSet("runtime-upgrade")),
		ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_REQUEST_CANCEL,
		// A backstop derived from the table (run_limits.go): a server by its
		// steps, a rack by its waves of servers. Each step runs once: no
		// retries of children.
		WorkflowRunTimeout: runLimit(run),
	})
}

// leftBehind keeps the cluster's version and the upgrade mark when servers
// failed: the cluster does not run the target until they do, and starting
// the same target again finishes exactly them (Plan.Finishing).
func (u *upgrade) leftBehind(ctx workflow.Context, p *api.ClusterStatusPatch) {
	if workflow.GetVersion(ctx, changeUpgradeLeavesFailedBehind, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	version, keep, msg := upgradeplan.Completion(u.plan.From, u.in.TargetVersion, upgradeplan.LeftBehind(u.st.Units()...))
	p.RuntimeVersion, p.ClearUpgrade, p.DetailedStatusMessage = version, !keep, msg
}
