package bmc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"go.temporal.io/sdk/activity"
)

// run is one activity invocation against one BMC.
type run struct {
	ctx      context.Context
	a        *Activities
	ep       Endpoint
	c        bmcclient.Client
	progress progress
	chains   map[string]redirectChain // image URL → where its server redirects (redirect.go)
}

// progress is the heartbeat detail. A retried attempt reads it back to
// know whether an earlier attempt already issued the disruptive reset.
type progress struct {
	Step        string
	Version     string
	Image       string // the installer's URL without user info
	ResetType   string
	ResetIssued bool   // the reset was sent, or may have been: never send it again
	Task        string // what the reset's effect was: the result a retry returns
	LastState   string
	// BootOverride: "Continuous" when the BMC turned the one-time boot into
	// a lasting one.
	BootOverride string `json:",omitempty"`
	// Firmware (firmware_apply.go): the update was requested (recorded
	// before the request: never send a second), its task monitor, the
	// host start it needed was issued, and the task's PercentComplete.
	FwRequested   bool   `json:",omitempty"`
	FwTask        string `json:",omitempty"`
	FwHostStarted bool   `json:",omitempty"`
	Percent       int    `json:",omitempty"`
	// FwAwaitsStart: the pushed image waits for StartUpdate (recorded
	// before the push); FwStartSent: it was sent, or may have been;
	// FwState: the task's state and what it means (firmware_task.go).
	FwAwaitsStart bool   `json:",omitempty"`
	FwStartSent   bool   `json:",omitempty"`
	FwState       string `json:",omitempty"`
	// Before is the System as the reimage's reset found it: a retry whose
	// predecessor died before it saw the reset's effect looks for the
	// effect against it (resumedReimage).
	Before *resetMark `json:",omitempty"`
}

// resetMark is what tookEffect compares of the System before a reset.
type resetMark struct{ PowerState, BootProgress, BootOverride string }

func markOf(s bmcclient.System) *resetMark {
	return &resetMark{s.PowerState, s.BootProgress, s.BootOverride}
}

func (m *resetMark) system() bmcclient.System {
	return bmcclient.System{PowerState: m.PowerState, BootProgress: m.BootProgress, BootOverride: m.BootOverride}
}

// open validates the endpoint, resolves credentials and connects. The
// credentials live only in this frame and the client.
func (a *Activities) open(ctx context.Context, ep Endpoint) (*run, error) {
	r := &run{ctx: ctx, a: a, ep: ep}
	if _, err := bmcclient.BaseURL(ep.Address); err != nil {
		return nil, temporalError(ep, &stepError{"check the endpoint", &failure{kindConfig, err.Error()}})
	}
	creds, err := a.resolver().Resolve(ctx, ep.Credentials)
	if err != nil {
		var f *failure // a Secret that could not be read now says so
		if !errors.As(err, &f) {
			f = &failure{kindConfig, err.Error()} // a wrong reference: retrying cannot help
		}
		return nil, temporalError(ep, &stepError{"resolve credentials", f})
	}
	err = r.retry("connect", func() error {
		c, err := a.dial()(ctx, ep.conn(), creds, a.requestTimeout())
		r.c = c
		return err
	})
	if err != nil {
		return nil, r.result(err)
	}
	return r, nil
}

func (r *run) close() {
	if r.c != nil {
		r.c.Close()
	}
}

// perform runs op in a session with the endpoint's BMC: the activity's
// body, its error made the activity's by result.
func perform[T any](ctx context.Context, a *Activities, ep Endpoint, op func(*run) (T, error)) (T, error) {
	r, err := a.open(ctx, ep)
	if err != nil {
		var zero T
		return zero, err
	}
	defer r.close()
	v, err := op(r)
	return v, r.result(err)
}

// do is perform for an activity without a result.
func (a *Activities) do(ctx context.Context, ep Endpoint, op func(*run) error) error {
	_, err := perform(ctx, a, ep, func(r *run) (struct{}, error) { return struct{}{}, op(r) })
	return err
}

// result turns the outcome of an activity into what Temporal should see.
func (r *run) result(err error) error {
	switch {
	case err == nil:
		return nil
	case r.ctx.Err() != nil:
		return fmt.Errorf("BMC of %s at %s: %w", r.ep.BMM, bmcclient.RedactURL(r.ep.Address), err)
	}
	return temporalError(r.ep, err)
}

// retry runs a read (or a connect) until it succeeds, fails for good, or
// the budget for transient errors is spent.
func (r *run) retry(step string, op func() error) error {
	return r.act(step, func() (bool, error) { return false, nil }, op)
}

// act performs a mutating request. Before every try, done reads the
// machine (those reads retry on their own) and says whether the goal is
// already reached, so a try whose answer was lost is never repeated. A
// transient failure of do is retried with backoff, a 412 at once (done has
// just read a fresh ETag).
func (r *run) act(step string, done func() (bool, error), do func() error) error {
	backoff := r.a.backoff()
	transient, stale := 0, 0
	var capped sessionWait
	for {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		err = do()
		if err == nil {
			return nil
		}
		if ctxErr := r.ctx.Err(); ctxErr != nil {
			return &stepError{step, ctxErr}
		}
		if bmcclient.SessionCapped(err) { // waits within the step's time, not Attempts
			if err := r.awaitSession(step, &capped, err); err != nil {
				return err
			}
			continue
		}
		switch classify(err) {
		case kindTransient:
			if transient++; transient >= r.a.attempts() {
				return &stepError{step, err}
			}
			r.heartbeat(step + ": retrying after a transient error")
			if !r.sleep(backoff) {
				return &stepError{step, r.ctx.Err()}
			}
			backoff = min(2*backoff, maxBackoff)
		case kindPrecondition:
			if stale++; stale >= r.a.etagAttempts() {
				return &stepError{step, fmt.Errorf("the BMC answered 412 Precondition Failed %d times in a row: %w", stale, err)}
			}
		default:
			return &stepError{step, err}
		}
	}
}

// system reads the System, retrying transient errors.
func (r *run) system(step string) (bmcclient.System, error) {
	return read(r, step, r.c.System)
}

// read runs a read of the BMC under retry.
func read[T any](r *run, step string, get func(context.Context) (T, error)) (T, error) {
	var v T
	err := r.retry(step, func() (err error) {
		v, err = get(r.ctx)
		return err
	})
	return v, err
}

// task reads a task monitor; ok is false when the BMC forgot the task
// (DSP0266 lets it), in which case callers fall back to the System.
func (r *run) task(step, monitor string) (t bmcclient.Task, ok bool, err error) {
	err = r.retry(step, func() (err error) {
		t, err = r.c.Task(r.ctx, monitor)
		return err
	})
	if err != nil && bmcclient.NotFound(err) {
		return bmcclient.Task{}, false, nil
	}
	return t, err == nil, err
}

// waitUntil polls check every PollInterval, heartbeating, until it is done,
// fails, the context ends, or (when limit > 0) limit passes (errWaitLimit).
func (r *run) waitUntil(step string, limit time.Duration, check func() (bool, error)) error {
	var deadline time.Time
	if limit > 0 {
		deadline = time.Now().Add(limit)
	}
	for {
		done, err := check()
		if err != nil || done {
			return err
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			return errWaitLimit
		}
		r.heartbeat(step)
		if !r.sleep(r.a.pollInterval()) {
			return &stepError{step, r.ctx.Err()}
		}
	}
}

var errWaitLimit = errors.New("gave up waiting")

func (r *run) heartbeat(step string) {
	r.progress.Step = step
	if activity.IsActivity(r.ctx) {
		activity.RecordHeartbeat(r.ctx, r.progress)
	}
}

// record is heartbeat for what a retry must find before a request that
// must not be sent twice (a firmware update) or right after it (its task
// monitor). The SDK sends an attempt's first heartbeat at once but batches
// later ones within 0.8 × HeartbeatTimeout, so a worker killed in between
// leaves the server an older record and the retry would send the request
// again; with the worker's client (Activities.Heartbeats) the record is on
// the server when record returns. The error says it is not.
func (r *run) record(step string) error {
	r.heartbeat(step)
	if r.a.Heartbeats == nil || !activity.IsActivity(r.ctx) {
		return nil
	}
	if err := r.a.Heartbeats.RecordActivityHeartbeat(r.ctx, activity.GetInfo(r.ctx).TaskToken, r.progress); err != nil {
		return &stepError{step, fmt.Errorf("record progress with Temporal: %w", err)}
	}
	return nil
}

// resumed reads the progress an earlier attempt left in its heartbeat.
func (r *run) resumed() (progress, bool) {
	var p progress
	if !activity.IsActivity(r.ctx) || !activity.HasHeartbeatDetails(r.ctx) {
		return p, false
	}
	if err := activity.GetHeartbeatDetails(r.ctx, &p); err != nil {
		return p, false
	}
	return p, true
}

func (r *run) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
