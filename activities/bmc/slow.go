package bmc

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
)

// Slow BMCs (docs/evidence.md, "Slow BMCs and session caps"): a loaded
// iDRAC or iLO takes 20–40 s to answer a virtual-media action, longer than
// RequestTimeout (30 s) allows a request. A media action is therefore
// bounded by MediaActionTimeout — and, like every request, by the step's
// own time — and heartbeats while it waits longer than half the heartbeat
// timeout, so a slow answer is not taken for a dead worker. Only then: the
// SDK sends an attempt's first heartbeat at once and batches later ones,
// and the reimage's ResetIssued must be that first one where it can
// (issueReset). A
// client that gives up early gains nothing: the BMC carries the action out
// anyway, and the retry finds it done or the drive busy.

// mediaAction runs do, one media action, with its own bound.
func (r *run) mediaAction(step string, do func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(r.ctx, r.a.mediaActionTimeout())
	defer cancel()
	defer r.heartbeatWhile(step)()
	return do(ctx)
}

// heartbeatWhile heartbeats step every half heartbeat timeout until the
// returned stop is called (none when the activity has no such timeout).
func (r *run) heartbeatWhile(step string) (stop func()) {
	if !activity.IsActivity(r.ctx) || activity.GetInfo(r.ctx).HeartbeatTimeout <= 0 {
		return func() {}
	}
	every := activity.GetInfo(r.ctx).HeartbeatTimeout / 2
	p := r.progress
	p.Step = step
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-r.ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(r.ctx, p)
			}
		}
	}()
	return func() {
		close(done)
		<-ended
	}
}
