package kernel

import (
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Every wait a workflow makes is the operator's (docs/time-limits.md): a
// row of the time-limit table or derived from it. The waits that are not
// a step's own limit (limits.go) are derived here; workflows/waits_test.go
// lists each wait and fails on one built without its bound.

// TableBounds says whether the run bounds its waits by the table
// (ChangeTableBounds). Histories recorded before it keep the constants
// they ran with: the same values as the table's defaults, save the run
// limits of the upgrade's children (24 h) and the failover (none).
func TableBounds(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, ChangeTableBounds, workflow.DefaultVersion, 1) == 1
}

// callAttempts and callBackoff are the retries of a call that answers at
// once (Steps.short): CallBound counts them.
const (
	callAttempts = 10
	callBackoff  = 15 * time.Second
)

// CallAttempt bounds each attempt of a call that answers at once: the
// table's `call`, divided by div where a caller wants a fresh answer or
// none (the control-plane gate: a third). Before the table's call, the
// constants were the default minute divided the same way.
func CallAttempt(ctx workflow.Context, t model.Timeouts, div int) time.Duration {
	if !TableBounds(ctx) {
		return time.Minute / time.Duration(div)
	}
	return t.OrDefaults().Call.Std() / time.Duration(div)
}

// CallBound is the longest one call that answers at once may take with
// its retries: every attempt at the call limit, every pause at its most.
func CallBound(t model.Timeouts) time.Duration {
	return callAttempts * (t.OrDefaults().Call.Std() + callBackoff)
}

// MediaLimit bounds a clean-up of the BMC's virtual media (the installer's
// eject), which runs after the reimage's own limit.
func MediaLimit(t model.Timeouts) Limit { return TimeoutLimit(t.OrDefaults(), "media") }

// JoinLimit bounds the wait for a reimaged KCP's etcd member to join as a
// healthy voter, a step of its own after the reimage.
func JoinLimit(t model.Timeouts) Limit { return TimeoutLimit(t.OrDefaults(), "etcdJoin") }

// ReimageBound is the longest a reimage through ReimageUntilBack takes
// with its limit lim: the member's removal, the reset, install and node
// (lim), the eject, the member's join, and the calls around them.
func ReimageBound(t model.Timeouts, lim time.Duration) time.Duration {
	return lim + MediaLimit(t).D + JoinLimit(t).D + 3*CallBound(t)
}

// cleanup: the options of a bounded clean-up (the eject) within l, its
// retries included. It heartbeats like a step: without a heartbeat
// timeout, a worker killed mid-eject was noticed only when the attempt's
// whole limit ran out, and the eject failed instead of being retried
// (test/production saw it).
func (s *Steps) cleanup(l Limit, summary string) workflow.Context {
	return OnSite(workflow.WithActivityOptions(s.Ctx, workflow.ActivityOptions{
		ScheduleToCloseTimeout: l.D,
		StartToCloseTimeout:    l.D,
		HeartbeatTimeout:       heartbeatTimeout(l),
		Summary:                summary,
		RetryPolicy:            &temporal.RetryPolicy{MaximumInterval: callBackoff, MaximumAttempts: callAttempts},
	}), s.T.Queue)
}
