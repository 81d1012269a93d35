package kube

import (
	"context"
	"time"
)

// deadlineMargin: a wait ends this long before its activity's deadline (the
// step's limit, which its ScheduleToClose carries), so that its own answer —
// the drain's "proceed", the node's last status — reaches the workflow
// before the server times the step out with nothing to say.
const deadlineMargin = 2 * time.Second

// withinDeadline bounds a wait of d (0: unbounded) by ctx's deadline less
// the margin.
func withinDeadline(ctx context.Context, d time.Duration) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok {
		return d
	}
	r := max(time.Until(dl)-deadlineMargin, time.Millisecond)
	if d == 0 || r < d {
		return r
	}
	return d
}
