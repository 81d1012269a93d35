package workflows

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/workflow"
)

// RackUpgradeWorkflow upgrades one rack's servers (or one management stage)
// in parallel, at most Parallel at a time, each through
// ServerUpgradeWorkflow, and returns how many succeeded and failed. On
// cancel-update it starts no new server and waits for those in flight.
func RackUpgradeWorkflow(ctx workflow.Context, in api.RackInput) (api.RackResult, error) {
	servers := make([]api.ServerStatus, len(in.Rack.Servers))
	for i, s := range in.Rack.Servers {
		servers[i] = api.ServerStatus{Name: s, State: api.StatePending}
	}
	cancelled := false
	if err := workflow.SetQueryHandler(ctx, api.QueryStatus, func() ([]api.ServerStatus, error) { return servers, nil }); err != nil {
		return api.RackResult{}, err
	}
	workflow.Go(ctx, func(ctx workflow.Context) {
		workflow.GetSignalChannel(ctx, api.SignalCancel).Receive(ctx, nil)
		cancelled = true
	})
	parallel := in.Rack.Parallel
	if parallel <= 0 || parallel > len(servers) {
		parallel = len(servers)
	}
	inFlight, next := 0, 0
	sel := workflow.NewSelector(ctx)
	var res api.RackResult
	for next < len(servers) || inFlight > 0 {
		for !cancelled && inFlight < parallel && next < len(servers) {
			i := next
			next++
			inFlight++
			servers[i].State = api.StateRunning
			sin := in.Server
			sin.BMM = servers[i].Name
			fut := workflow.ExecuteChildWorkflow(childOpts(ctx, api.ServerUpgradeID(in.Cluster, sin.BMM),
				fmt.Sprintf("Upgrade %s to %s", sin.BMM, sin.TargetVersion), serverDetails(sin)), api.ServerUpgradeWorkflowName, sin)
			sel.AddFuture(fut, func(f workflow.Future) {
				inFlight--
				var r api.ServerResult
				err := f.Get(ctx, &r)
				switch {
				case err != nil:
					servers[i].State, servers[i].Error = api.StateFailed, err.Error()
				case !r.Succeeded:
					servers[i].State, servers[i].Error = api.StateFailed, r.Error
				default:
					servers[i].State = api.StateSucceeded
				}
			})
		}
		if cancelled && inFlight == 0 {
			break
		}
		if inFlight == 0 && next >= len(servers) {
			break
		}
		// Wake on a finished server, or on cancel so no new one starts.
		sel.Select(ctx)
	}
	for i := range servers {
		switch servers[i].State {
		case api.StateSucceeded:
			res.Succeeded++
		case api.StateFailed:
			res.Failed++
		case api.StatePending:
			servers[i].State = api.StateCancelled
		}
	}
	res.Servers = servers
	return res, nil
}
