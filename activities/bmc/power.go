package bmc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// PowerOn powers the machine on and returns once PowerState is On (not
// waiting for the OS). A machine already on is left alone.
func (a *Activities) PowerOn(ctx context.Context, ep Endpoint) error {
	return a.do(ctx, ep, (*run).powerOn)
}

func (r *run) powerOn() error {
	s, err := r.settledPower()
	if err != nil || s.PowerState == "On" {
		return err
	}
	task, err := r.reset("On", func(s System) bool { return s.PowerState != "Off" })
	if err != nil {
		return err
	}
	return r.stillOff("power on", r.waitPower("On", task, r.a.powerOnTimeout()))
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
// PowerState is Off.
func (a *Activities) PowerOff(ctx context.Context, in PowerOffInput) error {
	return a.do(ctx, in.Endpoint, func(r *run) error { return r.powerOff(in.SkipShutdown) })
}

func (r *run) powerOff(skipShutdown bool) error {
	s, err := r.settledPower()
	if err != nil || s.PowerState == "Off" {
		return err
	}
	down := func(s System) bool { return s.PowerState != "On" }
	if !skipShutdown && CanShutdownGracefully(s.ResetTypes) {
		task, err := r.reset("GracefulShutdown", down)
		if err != nil {
			return err
		}
		err = r.waitPower("Off", task, r.a.shutdownTimeout())
		if !errors.Is(err, errWaitLimit) {
			return err
		}
		r.heartbeat("graceful shutdown timed out; forcing off")
	}
	task, err := r.reset("ForceOff", func(s System) bool { return s.PowerState == "Off" })
	if err != nil {
		return err
	}
	return r.waitPower("Off", task, 0)
}

// Restart reboots the machine (ForceRestart) and returns once it is powered
// on again; an Off machine is powered on. A retried attempt whose
// predecessor already issued the reset does not reset again.
func (a *Activities) Restart(ctx context.Context, ep Endpoint) error {
	return a.do(ctx, ep, (*run).restart)
}

func (r *run) restart() error {
	if p, ok := r.resumed(); ok && p.ResetIssued {
		r.progress = p
		return r.stillOff("restart", r.waitPower("On", "", r.a.powerOnTimeout()))
	}
	s, err := r.settledPower()
	if err != nil {
		return err
	}
	if s.PowerState == "Off" {
		return r.powerOn()
	}
	rt := "ForceRestart"
	if !supports(s, rt) {
		rt = "GracefulRestart"
	}
	task, err := r.reset(rt, func(s System) bool { return s.PowerState != "On" || s.State == "Starting" })
	if err != nil {
		return err
	}
	r.progress.ResetIssued = true
	r.heartbeat("restarting")
	return r.waitPowerCycle(task)
}

// supports: a BMC that does not list its reset types is assumed to take the
// standard ones.
func supports(s System, rt string) bool {
	return len(s.ResetTypes) == 0 || slices.Contains(s.ResetTypes, rt)
}

// settledPower waits out a power transition already in progress.
func (r *run) settledPower() (System, error) {
	var s System
	err := r.waitUntil("wait for a power transition in progress", 0, func() (bool, error) {
		var err error
		s, err = r.system("read the System")
		return s.PowerState == "On" || s.PowerState == "Off", err
	})
	return s, err
}

// reset posts a reset once. After a transient failure the BMC may or may
// not have acted, so before posting again it reads the System and stops if
// tookEffect says the reset is already under way.
func (r *run) reset(rt string, tookEffect func(System) bool) (string, error) {
	var task string
	first := true
	err := r.act("reset "+rt, func() (bool, error) {
		if first {
			first = false
			return false, nil
		}
		s, err := r.system("read the System")
		return err == nil && tookEffect(s), err
	}, func() (err error) {
		task, err = r.c.Reset(r.ctx, rt)
		return err
	})
	return task, err
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
func (r *run) observe(monitor *string, failed kind) (done bool, s System, err error) {
	if done, err = r.checkTask(monitor, failed); err != nil {
		return false, s, err
	}
	s, err = r.system("read the System")
	return done, s, err
}

// waitPower waits for PowerState want; a failed task ends the wait early
// (e.g. a power-on the BMC accepted but could not carry out).
func (r *run) waitPower(want, monitor string, limit time.Duration) error {
	return r.waitUntil("wait for power "+want, limit, func() (bool, error) {
		done, s, err := r.observe(&monitor, kindPowerFailed)
		if err != nil || s.PowerState == want {
			return err == nil, err
		}
		if done && (s.PowerState == "On" || s.PowerState == "Off") {
			return false, &failure{kindConflict, fmt.Sprintf("the reset completed but PowerState is %s, not %s; did something else change it?", s.PowerState, want)}
		}
		return false, nil
	})
}

// waitPowerCycle waits until a restart has visibly taken the machine down
// (or its task finished) and PowerState is On again. A machine that stays
// Off past PowerOnTimeout fails the restart.
func (r *run) waitPowerCycle(monitor string) error {
	cycled := false
	var offSince time.Time
	err := r.waitUntil("wait for the restart", 0, func() (bool, error) {
		done, s, err := r.observe(&monitor, kindPowerFailed)
		if err != nil {
			return false, err
		}
		if s.PowerState != "On" || s.State == "Starting" || done || monitor == "" {
			cycled = true
		}
		switch {
		case s.PowerState != "Off":
			offSince = time.Time{}
		case offSince.IsZero():
			offSince = time.Now()
		case time.Since(offSince) > r.a.powerOnTimeout():
			return false, errWaitLimit
		}
		return cycled && s.PowerState == "On", nil
	})
	return r.stillOff("restart", err)
}
