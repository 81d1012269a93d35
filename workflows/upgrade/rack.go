package upgrade

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"go.temporal.io/sdk/workflow"
)

// RackUpgradeWorkflow upgrades one rack's servers (or one management stage)
// in parallel, at most Parallel at a time, each through
// ServerUpgradeWorkflow, and returns its servers' outcomes. It reports
// them to its parent as they change (rackReport). On cancel-update it
// starts no new server and waits for those in flight. When asked, it runs
// the capacity guard before its first wave and before each later server.
func RackUpgradeWorkflow(ctx workflow.Context, in api.RackInput) (api.RackResult, error) {
	unit := upgradeplan.NewUnit(in.Rack.Name, in.Rack.Servers, in.Rack.Required)
	cancelled := false
	if err := workflow.SetQueryHandler(ctx, api.QueryStatus, func() ([]api.ServerStatus, error) { return unit.Servers, nil }); err != nil {
		return api.RackResult{}, err
	}
	sel := workflow.NewSelector(ctx)
	var report *rackReport
	cancel := workflow.GetSignalChannel(ctx, api.SignalCancel)
	// The cancel wakes the loop: the servers not started are Cancelled and
	// reported at once, those in flight finish.
	onCancel := func() {
		cancelled = true
		unit.CancelPending()
		report.sendNow(unit.Servers)
	}
	wakes := workflow.GetVersion(ctx, changeRackCancelWakes, workflow.DefaultVersion, 1) != workflow.DefaultVersion
	if wakes {
		sel.AddReceive(cancel, func(c workflow.ReceiveChannel, _ bool) {
			c.Receive(ctx, nil)
			onCancel()
		})
	} else {
		// Older histories: the cancel was seen when a server finished.
		workflow.Go(ctx, func(ctx workflow.Context) {
			cancel.Receive(ctx, nil)
			cancelled = true
		})
	}
	check, held := rackCapacity(ctx, in)
	if held {
		return api.RackResult{Servers: unit.Servers, Capacity: check, Held: true}, nil
	}
	if check != nil && wakes && workflow.GetVersion(ctx, changeRackCancelAfterCheck, workflow.DefaultVersion, 1) == 1 &&
		cancel.ReceiveAsync(nil) {
		// The operator cancelled while the check ran: drain nothing.
		cancelled = true
	}
	// Each server after the first wave is a batch of its own: checked too.
	eachServer := check != nil && len(in.Capacity.Later) > 0 &&
		workflow.GetVersion(ctx, changeCapacityEachServer, workflow.DefaultVersion, 1) == 1
	var hold *api.CapacityCheck // a later server's shortfall under Pause
	servers, parallel := in.Rack.Servers, len(in.Rack.FirstWave())
	inFlight, next := 0, 0
	report = newRackReport(ctx, sel, in.Rack)
	for next < len(servers) || inFlight > 0 {
		for !cancelled && hold == nil && inFlight < parallel && next < len(servers) {
			name := servers[next]
			if eachServer && next >= parallel {
				c, held := laterCapacity(ctx, in, name)
				if held {
					hold, c.Servers = c, servers[next:]
					break
				}
				if cancel.ReceiveAsync(nil) {
					onCancel() // it came while the check ran
					break
				}
			}
			next++
			inFlight++
			unit.Apply(api.ServerStatus{Name: name, State: api.StateRunning})
			sin := in.Server
			sin.BMM = name
			fut := workflow.ExecuteChildWorkflow(childOpts(ctx, in.Cluster, api.ServerUpgradeID(in.Cluster, sin.BMM),
				fmt.Sprintf("Upgrade %s to %s", sin.BMM, sin.TargetVersion), serverDetails(sin), serverRun(sin)), api.ServerUpgradeWorkflowName, sin)
			sel.AddFuture(fut, func(f workflow.Future) {
				inFlight--
				var r api.ServerResult
				unit.Apply(serverOutcome(name, f.Get(ctx, &r), r))
			})
		}
		if (cancelled || hold != nil) && inFlight == 0 {
			break
		}
		if inFlight == 0 && next >= len(servers) {
			break
		}
		report.send(unit.Servers)
		// Wake on a finished server, on cancel so no new one starts, or
		// when a held-back report is due.
		sel.Select(ctx)
	}
	if hold != nil && !cancelled {
		// The servers not started wait, Pending, for the operator.
		return api.RackResult{Succeeded: unit.Succeeded, Failed: unit.Failed, Servers: unit.Servers, Capacity: hold, Held: true}, nil
	}
	unit.CancelPending()
	return api.RackResult{Succeeded: unit.Succeeded, Failed: unit.Failed, Servers: unit.Servers, Capacity: check}, nil
}

// serverOutcome is a server's state from its child's result.
func serverOutcome(name string, err error, r api.ServerResult) api.ServerStatus {
	switch {
	case err != nil:
		return api.ServerStatus{Name: name, State: api.StateFailed, Error: err.Error()}
	case !r.Succeeded:
		return api.ServerStatus{Name: name, State: api.StateFailed, Error: r.Error, Step: r.Step}
	case r.AlreadyAtTarget:
		return api.ServerStatus{Name: name, State: api.StateSkipped}
	}
	return api.ServerStatus{Name: name, State: api.StateSucceeded}
}
