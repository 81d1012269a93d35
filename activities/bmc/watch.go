package bmc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
)

// Defaults of WatchInput's limits.
const (
	defaultOffLimit     = 10 * time.Minute
	defaultSilenceLimit = 5 * time.Minute
	defaultStuckLimit   = 10 * time.Minute
)

// watchProgress is WatchReimage's heartbeat: a retried attempt keeps the
// clocks its predecessor started.
type watchProgress struct {
	Task        string
	Last        string    // the last BMC state seen
	OffSince    time.Time // zero unless PowerState is Off
	SilentSince time.Time // zero unless the BMC stopped answering
	SawOSBoot   bool      // BootProgress showed an OS (the installer) booting
	PostSince   time.Time // zero unless BootProgress is back in POST since SawOSBoot
}

// WatchReimage watches a reimage in flight until its context is cancelled
// (the caller saw the node come back), heartbeating each poll. It fails
// early, non-retryably with ErrTypeReimageFailed, on the BMC's hints that
// the install failed: the reset's task monitor (in.Task) reports Exception,
// PowerState stays Off longer than in.OffLimit, or the BMC stops answering
// for longer than in.SilenceLimit. BootProgress (absent, or stuck at POST
// values on some BMCs) never fails it.
func (a *Activities) WatchReimage(ctx context.Context, in WatchInput) error {
	if _, err := bmcclient.BaseURL(in.Address); err != nil {
		return temporalError(in.Endpoint, &stepError{"check the endpoint", &failure{kindConfig, err.Error()}})
	}
	creds, err := a.resolver().Resolve(ctx, in.Credentials)
	if err != nil {
		return temporalError(in.Endpoint, &stepError{"resolve credentials", &failure{kindConfig, err.Error()}})
	}
	w := &watcher{a: a, in: in, creds: creds, r: &run{ctx: ctx, a: a, ep: in.Endpoint}}
	w.p.Task = in.Task
	if activity.IsActivity(ctx) && activity.HasHeartbeatDetails(ctx) {
		_ = activity.GetHeartbeatDetails(ctx, &w.p) // unreadable: start the clocks afresh
	}
	defer w.close()
	for {
		if err := w.poll(time.Now()); err != nil {
			return w.end(err)
		}
		if activity.IsActivity(ctx) {
			activity.RecordHeartbeat(ctx, w.p)
		}
		if !w.r.sleep(a.pollInterval()) {
			return w.end(&stepError{"watch the reimage", ctx.Err()})
		}
	}
}

type watcher struct {
	a     *Activities
	in    WatchInput
	creds bmcclient.Credentials
	r     *run // its client is nil until a dial succeeds
	p     watchProgress
}

func (w *watcher) close() { w.r.close() }

// end is the watch's result. A healthy watch ends with its caller
// cancelling it (the node came back first): that is said as a benign
// error, which the SDK logs at debug, not as an activity error. It stays
// retryable: a watch cut by its worker's shutdown resumes on another.
func (w *watcher) end(err error) error {
	if errors.Is(w.r.ctx.Err(), context.Canceled) {
		return temporal.NewApplicationErrorWithOptions("the watch of "+w.in.Endpoint.BMM+"'s BMC was stopped",
			ErrTypeWatchStopped, temporal.ApplicationErrorOptions{Cause: context.Canceled,
				Category: temporal.ApplicationErrorCategoryBenign})
	}
	return w.r.result(err)
}

// poll makes one observation: dial if needed, the task, the System. Each
// request is tried once: the silence limit is the retry budget.
func (w *watcher) poll(now time.Time) error {
	s, err := w.observe()
	if err != nil {
		if classify(err) != kindTransient {
			return err // a failed task, or the BMC refusing us (wrong credentials)
		}
		if w.p.SilentSince.IsZero() {
			w.p.SilentSince = now
		}
		if silent := now.Sub(w.p.SilentSince); silent > orDefault(w.in.SilenceLimit, defaultSilenceLimit) {
			return w.failed(fmt.Sprintf("the BMC has not answered for %s (%s)", silent.Round(time.Second), describe(err)))
		}
		return nil
	}
	w.p.SilentSince, w.p.Last = time.Time{}, describeState(s)
	if w.p.SawOSBoot, w.p.PostSince = noOSBooted(w.p.SawOSBoot, w.p.PostSince, s.BootProgress, now); !w.p.PostSince.IsZero() {
		if stuck := now.Sub(w.p.PostSince); stuck > orDefault(w.in.StuckLimit, defaultStuckLimit) {
			return w.failed(fmt.Sprintf("BootProgress has shown %s for %s since the installer booted: no operating system started",
				s.BootProgress, stuck.Round(time.Second)))
		}
	}
	if s.PowerState != "Off" {
		w.p.OffSince = time.Time{}
		return nil
	}
	if w.p.OffSince.IsZero() {
		w.p.OffSince = now
	}
	if off := now.Sub(w.p.OffSince); off > orDefault(w.in.OffLimit, defaultOffLimit) {
		return w.failed(fmt.Sprintf("the machine has been powered off for %s during the install", off.Round(time.Second)))
	}
	return nil
}

func (w *watcher) observe() (bmcclient.System, error) {
	if w.r.c == nil {
		c, err := w.a.dial()(w.r.ctx, w.in.conn(), w.creds, w.a.requestTimeout())
		if err != nil {
			return bmcclient.System{}, &stepError{"connect", err}
		}
		w.r.c = c
	}
	if w.p.Task != "" {
		t, err := w.r.c.Task(w.r.ctx, w.p.Task)
		switch {
		case bmcclient.NotFound(err):
			w.p.Task = "" // forgotten (DSP0266 lets a BMC): the System alone
		case err != nil:
			return bmcclient.System{}, &stepError{"read the task monitor", err}
		case t.State == "Exception" || t.State == "Killed":
			// The failure says what the machine shows now, even when the
			// task failed before this watch first read the System.
			if s, err := w.r.c.System(w.r.ctx); err == nil {
				w.p.Last = describeState(s)
			}
			return bmcclient.System{}, w.failed(fmt.Sprintf("the reset's task %s reports %s: %s", w.p.Task, t.State, t.Message))
		case t.State == "Completed" || t.State == "Cancelled":
			w.p.Task = ""
		}
	}
	s, err := w.r.c.System(w.r.ctx)
	if err != nil {
		return bmcclient.System{}, &stepError{"read the System", err}
	}
	return s, nil
}

// failed is the reimage failure the caller reports: what was seen and the
// last BMC state (temporalError adds the BMM and the BMC).
func (w *watcher) failed(why string) error {
	last := w.p.Last
	if last == "" {
		last = "never read"
	}
	return &stepError{"watch the reimage", &failure{kindReimageFailed, why + "; last BMC state: " + last}}
}

// postStates are the BootProgress.LastState values of a machine that has
// not reached an OS: DMTF's POST stages and the setup screen.
var postStates = map[string]bool{
	"PrimaryProcessorInitializationStarted": true, "BusInitializationStarted": true,
	"MemoryInitializationStarted": true, "SecondaryProcessorInitializationStarted": true,
	"PCIResourceConfigStarted": true, "SystemHardwareInitializationComplete": true, "SetupEntered": true,
}

// noOSBooted follows BootProgress through an install: a BMC that showed
// an OS booting (OSBootStarted or OSRunning: the installer) and then shows
// a POST state has rebooted the machine; POST lasts minutes, so only a
// machine that stays there (the caller's StuckLimit) has no OS to start.
// A BMC that never shows an OS boot (BootProgress absent, or POST-time
// values only, as Supermicro's) never gets here: its silence proves nothing.
func noOSBooted(sawOS bool, postSince time.Time, progress string, now time.Time) (bool, time.Time) {
	switch {
	case progress == "OSBootStarted" || progress == "OSRunning":
		return true, time.Time{}
	case sawOS && postStates[progress]:
		if postSince.IsZero() {
			postSince = now
		}
		return true, postSince
	}
	return sawOS, time.Time{}
}
