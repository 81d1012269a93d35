package kernel

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// A limit is a promise to the operator (docs/time-limits.md): a step given
// N minutes ends within N minutes, retries included, and its failure says
// which limit ran out and where it is set.

// ErrStepTimedOut is the type of a step that ran out of its limit.
const ErrStepTimedOut = "StepTimedOut"

// Limit is a step's time limit and the inventory key that sets it.
type Limit struct {
	D   time.Duration
	Key string
	of  time.Duration // the whole limit d is what is left of; 0: d is whole
}

// String is the limit the operator set, not what was left of it.
func (l Limit) String() string { return fmt.Sprintf("%v (%s)", cmp.Or(l.of, l.D), l.Key) }

// Left is what remains of l after start, at least a second, keeping its key
// and the whole limit for messages.
func (l Limit) Left(ctx workflow.Context, start time.Time) Limit {
	return Limit{D: max(l.D-workflow.Now(ctx).Sub(start), time.Second), Key: l.Key, of: cmp.Or(l.of, l.D)}
}

// SiteLimits are the time limits a workflow applies: the site's, or the
// constants histories recorded before them ran with (the same defaults).
func SiteLimits(ctx workflow.Context, cs api.ClusterState) model.Timeouts {
	if workflow.GetVersion(ctx, changeSiteLimits, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return model.DefaultTimeouts()
	}
	return cs.Limits()
}

// TimeoutLimit is the limit of one row of the table.
func TimeoutLimit(t model.Timeouts, key string) Limit {
	for _, f := range model.TimeoutFields {
		if f.Key == key {
			return Limit{D: f.Of(t), Key: "timeouts." + key}
		}
	}
	panic("no time limit " + key) // a programming error: the keys are the table's
}

// RemediationLimit is a remediation clock as a limit.
func RemediationLimit(d model.Duration, key string) Limit {
	return Limit{D: d.Std(), Key: "remediation." + key}
}

// overLimit turns an activity that ran out of its step's time into the
// step's own failure: what did not happen, within which limit, set where.
// Any other error is returned as it is.
func overLimit(err error, what string, l Limit) error {
	if !isTimeout(err) {
		return err
	}
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("%s within %v", what, l), ErrStepTimedOut, nil)
}

// isTimeout: the step's own clock ran out (errOverLimit), the server timed
// the activity out (ScheduleToClose, StartToClose or a lost heartbeat), or
// it ended on its own deadline.
func isTimeout(err error) bool {
	if err == nil {
		return false
	}
	var te *temporal.TimeoutError
	return errors.Is(err, errOverLimit) || errors.As(err, &te) || strings.Contains(err.Error(), "context deadline exceeded")
}

// ranOutOfTime: the activity's last attempt ended because its own context
// did (cancelled or past its deadline) and the server had no room left
// for another (RETRY_STATE_TIMEOUT) — the step's limit passed, told by
// the worker rather than the server. A real failure that used up the
// limit in retries is not this: it keeps its own error.
func ranOutOfTime(err error) bool {
	var ae *temporal.ActivityError
	if !errors.As(err, &ae) || ae.RetryState() != enumspb.RETRY_STATE_TIMEOUT {
		return false
	}
	var ce *temporal.CanceledError
	if errors.As(err, &ce) {
		return true
	}
	var app *temporal.ApplicationError
	return errors.As(err, &app) && (app.Message() == context.Canceled.Error() || app.Message() == context.DeadlineExceeded.Error())
}

// IsStepTimeout: err is (or wraps) a step's overLimit failure.
func IsStepTimeout(err error) bool {
	var ae *temporal.ApplicationError
	return errors.As(err, &ae) && ae.Type() == ErrStepTimedOut
}

// errOverLimit settles a bounded step whose limit passed first.
var errOverLimit = errors.New("the step's time limit passed")

// bound starts an activity with start and returns a future settled by it,
// or by errOverLimit once l has passed on the workflow's clock (the
// activity is then cancelled). The activity's ScheduleToClose says the
// same to the server; the workflow's own timer keeps the promise wherever
// that comes late or is not applied (the SDK's test environment).
func bound(ctx workflow.Context, l Limit, start func(workflow.Context) workflow.Future) workflow.Future {
	if workflow.GetVersion(ctx, changeSiteLimits, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return start(ctx)
	}
	actx, cancelActivity := workflow.WithCancel(ctx)
	fut := start(actx)
	out, set := workflow.NewFuture(ctx)
	workflow.Go(ctx, func(gctx workflow.Context) {
		tctx, stopTimer := workflow.WithCancel(gctx)
		timer := workflow.NewTimer(tctx, l.D)
		sel := workflow.NewSelector(gctx)
		sel.AddFuture(fut, func(f workflow.Future) { stopTimer(); set.Chain(f) })
		sel.AddFuture(timer, func(f workflow.Future) {
			if f.Get(gctx, nil) != nil {
				set.Chain(fut) // the workflow is cancelled: the activity says how it ended
				return
			}
			cancelActivity()
			set.SetError(errOverLimit)
		})
		sel.Select(gctx)
	})
	return out
}

// run executes a long step's activity within l.
func (s *Steps) run(l Limit, summary string, out any, activity any, args ...any) error {
	return bound(s.Ctx, l, func(ctx workflow.Context) workflow.Future {
		return workflow.ExecuteActivity(s.in(ctx).long(l, summary), activity, args...)
	}).Get(s.Ctx, out)
}
