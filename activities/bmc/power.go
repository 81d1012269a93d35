package bmc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
)

// PowerOn powers the machine on and returns once PowerState is On (not
// waiting for the OS): the read-back from Off is the evidence. A machine
// already on is left alone (ResetType "").
func (a *Activities) PowerOn(ctx context.Context, ep Endpoint) (PowerResult, error) {
	return perform(ctx, a, ep, (*run).powerOn)
}

func (r *run) powerOn() (PowerResult, error) {
	s, err := r.settledPower()
	if err != nil || s.PowerState == "On" {
		return PowerResult{LastState: describeState(s)}, err
	}
	acc, err := r.issueReset("On", func(s bmcclient.System) bool { return s.PowerState != "Off" })
	if err != nil {
		return PowerResult{}, err
	}
	res := PowerResult{ResetType: "On", Answer: acc.String(), Evidence: "PowerState Off → On"}
	var last bmcclient.System
	err = r.waitPower("On", acc.Task, r.a.powerOnTimeout(), &last)
	res.LastState = describeState(last)
	return res, r.stillOff("power on", err)
}

// stillOff names a wait that ran out while the machine stayed Off: vendor
// BMCs accept a power action (204) and may leave the machine Off.
func (r *run) stillOff(step string, err error) error {
	if errors.Is(err, errWaitLimit) {
		return &stepError{step, &failure{kindPowerFailed, fmt.Sprintf("the BMC accepted the %s but the machine is still Off after %s", step, r.a.powerOnTimeout())}}
	}
	return err
}

// PowerOff shuts the machine down gracefully (ForceOff after
// ShutdownTimeout), or at once with SkipShutdown, and returns once
// PowerState is Off. A ForceOff that shows no Off within PowerOnTimeout
// fails typed.
func (a *Activities) PowerOff(ctx context.Context, in PowerOffInput) error {
	return a.do(ctx, in.Endpoint, func(r *run) error { return r.powerOff(in.SkipShutdown) })
}

func (r *run) powerOff(skipShutdown bool) error {
	s, err := r.settledPower()
	if err != nil || s.PowerState == "Off" {
		return err
	}
	down := func(s bmcclient.System) bool { return s.PowerState != "On" }
	if !skipShutdown && CanShutdownGracefully(s.ResetTypes) {
		acc, err := r.issueReset("GracefulShutdown", down)
		if err != nil {
			return err
		}
		err = r.waitPower("Off", acc.Task, r.a.shutdownTimeout(), nil)
		if !errors.Is(err, errWaitLimit) {
			return err
		}
		r.heartbeat("graceful shutdown timed out; forcing off")
	}
	acc, err := r.issueReset("ForceOff", func(s bmcclient.System) bool { return s.PowerState == "Off" })
	if err != nil {
		return err
	}
	var last bmcclient.System
	err = r.waitPower("Off", acc.Task, r.a.powerOnTimeout(), &last)
	if errors.Is(err, errWaitLimit) {
		return &stepError{"force off", &failure{kindNoEffect, noChange("ForceOff", acc, r.a.powerOnTimeout(), last) + ": the machine is still on"}}
	}
	return err
}

// Restart reboots the machine (ForceRestart) and returns once it visibly
// cycled and is on again (Evidence), or, when the BMC accepted the reset
// but showed no change within ResetEvidenceTimeout, with Unconfirmed: the
// caller settles it by the node's boot ID. An Off machine is powered on.
// A retried attempt whose predecessor already issued the reset does not
// reset again; its result is Unconfirmed.
func (a *Activities) Restart(ctx context.Context, ep Endpoint) (PowerResult, error) {
	return perform(ctx, a, ep, (*run).restart)
}

func (r *run) restart() (PowerResult, error) {
	if p, ok := r.resumed(); ok && p.ResetIssued {
		r.progress = p
		var last bmcclient.System
		err := r.stillOff("restart", r.waitPower("On", "", r.a.powerOnTimeout(), &last))
		rt := cmp.Or(p.ResetType, "ForceRestart")
		return PowerResult{ResetType: rt, Unconfirmed: true, LastState: describeState(last),
			Detail: "sent " + rt + " in an earlier attempt; whether the machine cycled was not seen: " + describeState(last)}, err
	}
	s, err := r.settledPower()
	if err != nil {
		return PowerResult{}, err
	}
	if s.PowerState == "Off" {
		return r.powerOn()
	}
	rt := "ForceRestart"
	if !supports(s, rt) {
		rt = "GracefulRestart"
	}
	acc, err := r.issueReset(rt, func(now bmcclient.System) bool { return cycleEvidence(s, now, false) != "" })
	if err != nil {
		return PowerResult{}, err
	}
	r.heartbeat("restarting")
	return r.waitPowerCycle(s, rt, acc)
}

// evidenceWindow is how long a restart may take to show: ResetEvidenceTimeout,
// or half of the activity's time left when that is less, so the node has
// the rest of the step's limit to prove an Unconfirmed reset.
func (r *run) evidenceWindow() time.Duration {
	d := r.a.resetEvidenceTimeout()
	if dl, ok := r.ctx.Deadline(); ok {
		if half := time.Until(dl) / 2; half > 0 && half < d {
			d = half
		}
	}
	return d
}

// supports: a BMC that does not list its reset types is assumed to take the
// standard ones.
func supports(s bmcclient.System, rt string) bool {
	return len(s.ResetTypes) == 0 || slices.Contains(s.ResetTypes, rt)
}

// settledPower waits out a power transition already in progress, for at
// most PowerOnTimeout.
func (r *run) settledPower() (bmcclient.System, error) {
	var s bmcclient.System
	err := r.waitUntil("wait for a power transition in progress", r.a.powerOnTimeout(), func() (bool, error) {
		var err error
		s, err = r.system("read the System")
		return s.PowerState == "On" || s.PowerState == "Off", err
	})
	if errors.Is(err, errWaitLimit) {
		return s, &stepError{"wait for a power transition in progress", &failure{kindNoEffect,
			fmt.Sprintf("the BMC still shows PowerState %s after %s", s.PowerState, r.a.powerOnTimeout())}}
	}
	return s, err
}

// issueReset is how every step sends a reset: it records ResetIssued (and
// the type) with Temporal first, synchronously (run.record), so an attempt
// whose worker dies while the POST is in flight is resumed without a
// second reset (Restart and Reimage check it; PowerOn and PowerOff re-read
// the power state instead) — even after a wait, when a plain heartbeat
// could still sit in the SDK's batch. A reset that cannot be recorded is
// not sent. A refusal outright (the BMC did nothing) clears the record.
func (r *run) issueReset(rt string, tookEffect func(bmcclient.System) bool) (bmcclient.Accepted, error) {
	r.progress.ResetType, r.progress.ResetIssued = rt, true
	if err := r.record("sending reset " + rt); err != nil {
		r.progress.ResetIssued = false // nothing was sent: a retry may send it
		r.heartbeat("reset " + rt + " not sent")
		return bmcclient.Accepted{}, err
	}
	acc, err := r.reset(rt, tookEffect)
	if err != nil && classify(err) != kindTransient && r.ctx.Err() == nil {
		r.progress.ResetIssued = false
		r.heartbeat("reset " + rt + " refused")
	}
	return acc, err
}

// reset posts a reset once. After a transient failure the BMC may or may
// not have acted, so before posting again it reads the System and stops if
// tookEffect says the reset is already under way.
func (r *run) reset(rt string, tookEffect func(bmcclient.System) bool) (bmcclient.Accepted, error) {
	var acc bmcclient.Accepted
	first := true
	err := r.act("reset "+rt, func() (bool, error) {
		if first {
			first = false
			return false, nil
		}
		s, err := r.system("read the System")
		return err == nil && tookEffect(s), err
	}, func() (err error) {
		acc, err = r.c.Reset(r.ctx, rt)
		return err
	})
	return acc, err
}

// checkTask reads the task monitor, if any: done when it completed, an
// error when it failed (a power action the BMC could not carry out) or was
// superseded.
func (r *run) checkTask(monitor *string, failed kind) (done bool, err error) {
	if *monitor == "" {
		return false, nil
	}
	t, ok, err := r.task("read the task monitor", *monitor)
	if err != nil || !ok {
		*monitor = "" // forgotten: rely on the System alone
		return false, err
	}
	switch t.State {
	case "Completed":
		return true, nil
	case "Exception", "Killed":
		return false, &failure{failed, "the BMC reports the action failed: " + t.Message}
	case "Cancelled":
		return false, &failure{kindConflict, "the action was superseded by another one on the BMC: " + t.Message}
	}
	return false, nil
}

// observe reads the task monitor (see checkTask), then the System.
func (r *run) observe(monitor *string, failed kind) (done bool, s bmcclient.System, err error) {
	if done, err = r.checkTask(monitor, failed); err != nil {
		return false, s, err
	}
	s, err = r.system("read the System")
	return done, s, err
}

// waitPower waits for PowerState want; a failed task ends the wait early
// (e.g. a power-on the BMC accepted but could not carry out). last, when
// not nil, is the System as last read.
func (r *run) waitPower(want, monitor string, limit time.Duration, last *bmcclient.System) error {
	return r.waitUntil("wait for power "+want, limit, func() (bool, error) {
		done, s, err := r.observe(&monitor, kindPowerFailed)
		if last != nil && err == nil {
			*last = s
		}
		if err != nil || s.PowerState == want {
			return err == nil, err
		}
		if done && (s.PowerState == "On" || s.PowerState == "Off") {
			return false, &failure{kindConflict, fmt.Sprintf("the reset completed but PowerState is %s, not %s; did something else change it?", s.PowerState, want)}
		}
		return false, nil
	})
}

// waitPowerCycle waits until a restart visibly took the machine down (see
// cycleEvidence) and PowerState is On again. No evidence within
// ResetEvidenceTimeout makes the result Unconfirmed; a machine that stays
// Off past PowerOnTimeout fails the restart.
func (r *run) waitPowerCycle(before bmcclient.System, rt string, acc bmcclient.Accepted) (PowerResult, error) {
	res := PowerResult{ResetType: rt, Answer: acc.String()}
	monitor := acc.Task
	window := r.evidenceWindow()
	evidenceBy := time.Now().Add(window)
	var offSince time.Time
	var last bmcclient.System
	err := r.waitUntil("wait for the restart", 0, func() (bool, error) {
		done, s, err := r.observe(&monitor, kindPowerFailed)
		if err != nil {
			return false, err
		}
		last = s
		if res.Evidence == "" {
			res.Evidence = cycleEvidence(before, s, done)
		}
		if res.Evidence == "" && time.Now().After(evidenceBy) {
			res.Unconfirmed = true
			return true, nil
		}
		switch {
		case s.PowerState != "Off":
			offSince = time.Time{}
		case offSince.IsZero():
			offSince = time.Now()
		case time.Since(offSince) > r.a.powerOnTimeout():
			return false, errWaitLimit
		}
		return res.Evidence != "" && s.PowerState == "On", nil
	})
	res.LastState = describeState(last)
	if res.Unconfirmed {
		res.Detail = noChange(rt, acc, window, last)
		r.heartbeat("restart unconfirmed: " + res.Detail)
	}
	return res, r.stillOff("restart", err)
}
