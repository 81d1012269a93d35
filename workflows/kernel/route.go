package kernel

import (
	"go.temporal.io/sdk/workflow"
)

// OnSite routes the activities scheduled from ctx to a site's task queue.
//
// BMC and Kubernetes activities must run where the BMCs and the Kubernetes
// API are reachable. For a site on its own network that is a site worker
// (`worker --site-of <cluster>`) polling the queue the inventory names
// (site.taskQueue, usually rackroll-site-<cluster>); workflows and ledger
// activities stay on the central queue. queue "" keeps the workflow's own
// task queue, which is what every cluster without a site section gets.
//
// Apply it after workflow.WithActivityOptions: that call replaces every
// option, the task queue included. Changing the queue changes only an
// attribute of ScheduleActivityTask, not the command sequence, so
// histories recorded before routing existed still replay.
func OnSite(ctx workflow.Context, queue string) workflow.Context {
	if queue == "" {
		return ctx
	}
	return workflow.WithTaskQueue(ctx, queue)
}
