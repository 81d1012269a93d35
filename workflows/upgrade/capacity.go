package upgrade

import (
	"slices"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/capacity"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// The capacity guard runs before a batch of servers is drained (a rack's
// first wave, a management stage; docs/behaviour-upgrade.md#guards): it asks
// whether the pods the drain evicts can land on the nodes that stay up.
// When they cannot, capacityPolicy Warn proceeds and the status names the
// pods that will be Pending; Pause pauses before the drain, naming the
// unit, the shortfall and the pods.
//
// Since version 1 of capacity-in-rack the rack child runs the check
// (rackCapacity) and the parent hears of it only when the batch does not
// fit: 64 checks cost a 64-rack upgrade's history some 400 events.

// drainAndRun runs batch as the child id once the capacity guard let it
// (true: the operator cancelled in the guard's pause).
func (u *upgrade) drainAndRun(ctx workflow.Context, id string, batch upgradeplan.Rack, unit *api.UnitStatus) (bool, error) {
	if workflow.GetVersion(ctx, changeCapacityInRack, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		if cancelled, err := u.capacityGuard(ctx, batch, unit); err != nil || cancelled {
			return cancelled, err
		}
		_, err := u.runUnit(ctx, id, batch, unit, nil)
		return false, err
	}
	var ask *api.CapacityAsk
	if nodes := u.firstWaveNodes(batch); len(nodes) > 0 {
		ask = &api.CapacityAsk{Nodes: nodes, Hold: u.plan.Strategy.CapacityPolicy == model.CapacityPause, Queue: u.siteQueue,
			Later: u.laterNodes(batch)}
	}
	for {
		res, err := u.runUnit(ctx, id, batch, unit, ask)
		if err != nil || !res.Held {
			return false, err
		}
		if u.cancelled {
			return true, nil
		}
		if cancelled, err := u.holdForRoom(ctx, unit, *res.Capacity); err != nil || cancelled {
			return cancelled, err
		}
		// The operator's word: drain what the hold kept back (the whole
		// batch when its first wave was held) without asking again.
		batch.Servers = notStarted(batch.Servers, unit)
		ask = nil
	}
}

// notStarted are the servers of names unit still shows Pending.
func notStarted(names []string, unit *api.UnitStatus) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return unit.StateOf(n) != api.StatePending })
}

// laterNodes are the nodes of batch's servers after its first wave.
func (u *upgrade) laterNodes(batch upgradeplan.Rack) map[string]string {
	out := map[string]string{}
	for _, s := range batch.Servers[len(batch.FirstWave()):] {
		if n := u.nodeOf[s]; n != "" {
			out[s] = n
		}
	}
	return out
}

// capacityGuard is the guard as the parent ran it before capacity-in-rack
// (true when the operator cancelled).
func (u *upgrade) capacityGuard(ctx workflow.Context, batch upgradeplan.Rack, unit *api.UnitStatus) (bool, error) {
	if workflow.GetVersion(ctx, changeCapacityGuard, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return false, nil
	}
	nodes := u.firstWaveNodes(batch)
	if len(nodes) == 0 {
		return false, nil
	}
	check, seen := checkCapacity(ctx, batch.Name, nodes, u.siteQueue, limitsOf(u.server))
	u.noteCapacity(ctx, "", check)
	if !seen || check.Fits || u.plan.Strategy.CapacityPolicy != model.CapacityPause || u.cancelled {
		return false, nil
	}
	return u.holdForRoom(ctx, unit, check)
}

func (u *upgrade) firstWaveNodes(batch upgradeplan.Rack) []string {
	var nodes []string
	for _, s := range batch.FirstWave() {
		if n := u.nodeOf[s]; n != "" {
			nodes = append(nodes, n)
		}
	}
	return nodes
}

// noteCapacity adds a check to the status once: a rack child's shortfall
// comes both as a report and with its result (run is the child's id, a
// child may check several batches; "" for the parent's own check).
func (u *upgrade) noteCapacity(ctx workflow.Context, run string, check api.CapacityCheck) {
	if run != "" {
		key := run + "/" + check.Unit
		if u.capacityOf[key] {
			return
		}
		u.capacityOf[key] = true
	}
	u.st.Capacity = append(u.st.Capacity, check)
	u.show(ctx)
}

// holdForRoom pauses the unit before its drain until the operator
// continues (false) or cancels (true).
func (u *upgrade) holdForRoom(ctx workflow.Context, unit *api.UnitStatus, check api.CapacityCheck) (bool, error) {
	prev := unit.State
	unit.State = api.StatePaused
	// The check noted last is this one: the status says it held the batch,
	// and when the operator let it go (the lab checker holds drains to it).
	last := len(u.st.Capacity) - 1
	u.st.Capacity[last].Held = true
	why := "not enough room to drain " + check.Message + ". Make room (or accept the Pending pods), then continue-update; cancel-update stops"
	if check.NotChecked {
		why = "capacityPolicy Pause and the guard could not read the cluster before the drain: " + check.Message +
			". Give the worker its access (starter site check), or drain unjudged, with continue-update; cancel-update stops"
	}
	// A hold between batches of a rack is no move point: the next run
	// would take the rack's Paused state for its threshold's and skip it.
	mid := u.midRack
	u.midRack = true
	cancelled, err := u.pause(ctx, unit, why)
	u.midRack = mid
	unit.State = prev
	if !cancelled && err == nil {
		u.st.Capacity[last].ContinuedAt = unit.ContinuedAt
	}
	return cancelled, err
}

// checkCapacity asks whether the pods a drain of nodes evicts find room.
// seen is false when it could not tell: the check says why (NotChecked);
// Warn drains and says so, Pause holds (holds).
func checkCapacity(ctx workflow.Context, unit string, nodes []string, queue string, t model.Timeouts) (check api.CapacityCheck, seen bool) {
	var r capacity.Report
	check.Unit = unit
	if err := askCapacity(ctx, unit, nodes, queue, t).Get(ctx, &r); err != nil {
		check.Message, check.NotChecked = unit+": capacity not checked: "+temporalerr.Message(err), true
		return check, false
	}
	check.Fits, check.Message, check.Pending = r.Fits(), r.Describe(unit), r.Pending
	return check, true
}

// rackCapacity is the guard as a rack child runs it: nil when not asked;
// Held when a shortfall must wait for the operator. A shortfall the rack
// drains anyway is reported to the parent at once, so `upgrade status`
// names the Pending pods while the rack runs.
func rackCapacity(ctx workflow.Context, in api.RackInput) (check *api.CapacityCheck, held bool) {
	ask := in.Capacity
	if ask == nil {
		return nil, false
	}
	c, seen := checkCapacity(ctx, in.Rack.Name, ask.Nodes, ask.Queue, limitsOf(in.Server))
	if holds(ctx, c, seen, ask.Hold) {
		c.Servers = in.Rack.Servers
		return &c, true
	}
	reportShortfall(ctx, c)
	return &c, false
}

// laterCapacity is the guard before a server after the rack's first wave
// starts: its drain is a batch of its own (the servers in flight are
// cordoned, so the check counts their nodes out). held: a shortfall under
// Pause; the rack starts no more servers and returns it.
func laterCapacity(ctx workflow.Context, in api.RackInput, server string) (check *api.CapacityCheck, held bool) {
	ask := in.Capacity
	node := ask.Later[server]
	if node == "" {
		return nil, false
	}
	c, seen := checkCapacity(ctx, in.Rack.Name+" "+server, []string{node}, ask.Queue, limitsOf(in.Server))
	if holds(ctx, c, seen, ask.Hold) {
		return &c, true
	}
	reportShortfall(ctx, c)
	return &c, false
}

// holds: under Pause (hold) a batch that does not fit waits for the
// operator, and since capacity-blind-holds so does one the guard could not
// see: Pause promises no drain the guard has not judged. The version is
// asked only when the check failed, so other runs record no marker.
func holds(ctx workflow.Context, c api.CapacityCheck, seen, hold bool) bool {
	if !hold || c.Fits {
		return false
	}
	return seen || workflow.GetVersion(ctx, changeCapacityBlindHolds, workflow.DefaultVersion, 1) >= 1
}

// reportShortfall tells the parent at once of a batch drained although it
// does not fit (or could not be checked), so `upgrade status` names the
// Pending pods while the rack runs.
func reportShortfall(ctx workflow.Context, c api.CapacityCheck) {
	info := workflow.GetInfo(ctx)
	if !c.Fits && info.ParentWorkflowExecution != nil {
		// Waited on, so the parent has it before the rack's result.
		_ = workflow.SignalExternalWorkflow(ctx, info.ParentWorkflowExecution.ID, info.ParentWorkflowExecution.RunID,
			api.SignalRackProgress, api.RackProgress{Run: info.WorkflowExecution.ID, Capacity: &c}).Get(ctx, nil)
	}
}

// askCapacity runs the check. Since capacity-local, when the site's
// activities run on the workflow's own worker (no site queue) it is a local
// activity: the read is as fresh, and the rack starts its first wave in the
// workflow task that asked, instead of waiting two more round trips through
// the server (~100 ms of every rack's critical path; docs/performance.md).
// A site worker elsewhere keeps the remote activity.
func askCapacity(ctx workflow.Context, unit string, nodes []string, queue string, t model.Timeouts) workflow.Future {
	limit := kernel.CallAttempt(ctx, t, 1) // a call that answers at once
	retry := &temporal.RetryPolicy{MaximumInterval: 10 * time.Second, MaximumAttempts: 3}
	summary, in := "Check capacity for "+unit, kube.CapacityInput{Nodes: nodes}
	if queue == "" && workflow.GetVersion(ctx, changeCapacityLocal, workflow.DefaultVersion, 1) == 1 {
		lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
			ScheduleToCloseTimeout: limit, Summary: summary, RetryPolicy: retry})
		return workflow.ExecuteLocalActivity(lctx, ka.CheckCapacity, in)
	}
	actx := kernel.OnSite(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: limit, Summary: summary, RetryPolicy: retry}), queue)
	return workflow.ExecuteActivity(actx, ka.CheckCapacity, in)
}
