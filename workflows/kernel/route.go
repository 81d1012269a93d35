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

// SiteRead runs a short read of the site (a List of nodes, etcd's status,
// a HEAD of the image): a local activity of the workflow's own worker
// when ctx asks for local calls (LocalLedger) and the site has no queue of
// its own, so the site's activities run on that worker anyway; else the
// activity, on the site's queue. The read is as fresh either way; the
// local one saves the caller an activity task and a workflow task before
// its next command. opts bound each attempt and the whole as for the
// activity; a local activity has no heartbeat, so only reads that answer
// within a call go through here.
func SiteRead(ctx workflow.Context, queue string, opts workflow.ActivityOptions, activity any, args ...any) workflow.Future {
	// Only a read bounded as a whole goes local: unset, a local activity's
	// ScheduleToClose is its StartToClose, which would leave its retries
	// no time at all.
	if queue == "" && localLedger(ctx) && opts.ScheduleToCloseTimeout > 0 {
		return workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
			ScheduleToCloseTimeout: opts.ScheduleToCloseTimeout, StartToCloseTimeout: opts.StartToCloseTimeout,
			RetryPolicy: opts.RetryPolicy, Summary: opts.Summary,
		}), activity, args...)
	}
	return workflow.ExecuteActivity(OnSite(workflow.WithActivityOptions(ctx, opts), queue), activity, args...)
}
