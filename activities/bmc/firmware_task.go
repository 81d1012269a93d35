package bmc

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/firmware"
)

// taskMeaning is what an update task's state says of the update.
type taskMeaning int

const (
	taskWorking taskMeaning = iota // still going: follow it
	taskDone                       // ended: the version proves it
	taskStaged                     // waits for a host reset
	taskFailed                     // ended without installing
	taskUnknown                    // a state rackroll does not know: followed, and named
)

// Task states by meaning, compared ignoring case (vendors differ: bmclib
// lowercases them, "so much for standards"). DMTF's TaskState (DSP0268)
// with what vendors add: Supermicro X12 says Scheduled for an install that
// waits for a host power cycle (bmclib maps it to power-cycle-host);
// Downloading, Downloaded and Scheduling are bmclib's; iDRAC queues a
// staged job as Pending ("Task successfully scheduled.", Dell's scripts).
var taskStates = map[string]taskMeaning{
	"new": taskWorking, "starting": taskWorking, "running": taskWorking, "stopping": taskWorking,
	"cancelling": taskWorking, "service": taskWorking, "suspended": taskWorking, "pending": taskWorking,
	"downloading": taskWorking, "downloaded": taskWorking, "scheduling": taskWorking, "verifying": taskWorking,
	"completed": taskDone,
	"scheduled": taskStaged, "staged": taskStaged,
	"exception": taskFailed, "killed": taskFailed, "cancelled": taskFailed, "interrupted": taskFailed,
	"failed": taskFailed, "aborted": taskFailed,
}

// meaningOf maps a task to what it means for the update. Pending is a
// queued task, unless its message says it waits for a reset: then it is
// staged (iDRAC's job for the next host reset).
func meaningOf(t bmcclient.Task) taskMeaning {
	s := strings.ToLower(t.State)
	m, ok := taskStates[s]
	switch {
	case !ok:
		return taskUnknown
	case s == "pending" && waitsForReset(t.Message):
		return taskStaged
	}
	return m
}

// waitsForReset: the task's message says the update applies at a reset.
func waitsForReset(msg string) bool {
	msg = strings.ToLower(msg)
	for _, w := range []string{"reset", "reboot", "restart", "power cycle", "power-cycle", "powercycle", "next boot", "scheduled"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// describeTask says a task's state and what rackroll takes it for, for
// the heartbeat and errors.
func describeTask(t bmcclient.Task) string {
	s := fmt.Sprintf("%s %d%%", t.State, t.Percent)
	switch meaningOf(t) {
	case taskStaged:
		s += " (staged until a host reset)"
	case taskUnknown:
		s += " (a task state rackroll does not know: followed until it ends or the limit)"
	}
	if t.Message != "" {
		s += ": " + t.Message
	}
	return s
}

// followUpdate follows the recorded task until the update is done or
// staged (it waits for a host reset). A forgotten task (a BMC that
// reset) or none leaves the judgement to the version.
func (r *run) followUpdate(c firmware.Component, limit time.Duration) (staged bool, err error) {
	last, err := r.followTask("follow the update of "+c.Name, c, limit, func(m taskMeaning) bool { return m == taskDone || m == taskStaged })
	if err != nil {
		return false, err
	}
	return meaningOf(last) == taskStaged, nil
}

// followTask reads the recorded task until until(meaning) or it is gone;
// a failed task fails at once with the BMC's message, a task still open
// at limit fails stuck, naming its state. It returns the last task read.
func (r *run) followTask(step string, c firmware.Component, limit time.Duration, until func(taskMeaning) bool) (bmcclient.Task, error) {
	mon := r.progress.FwTask
	last := bmcclient.Task{State: "unread"}
	if mon == "" {
		return last, nil
	}
	err := r.waitUntil(step, limit, func() (bool, error) {
		t, err := r.c.Task(r.ctx, mon)
		switch {
		case err != nil && bmcclient.NotFound(err):
			return true, nil
		case err != nil && classify(err) == kindTransient:
			return false, nil // a BMC rebooting into its new firmware
		case err != nil:
			return false, err
		}
		last, r.progress.Percent, r.progress.FwState = t, t.Percent, describeTask(t)
		m := meaningOf(t)
		if m == taskFailed {
			return false, taskFailure(c, t)
		}
		return until(m), nil
	})
	if errors.Is(err, errWaitLimit) {
		what := "is still " + describeTask(last)
		if last.State == "unread" {
			what = "(" + mon + ") could not be read"
		}
		return last, &stepError{step, &failure{kindFirmwareStuck, fmt.Sprintf("%s: the update task %s after %s", c.Name, what, limit)}}
	}
	return last, err
}

func taskFailure(c firmware.Component, t bmcclient.Task) error {
	return &failure{kindFirmwareException, fmt.Sprintf("%s: the update task ended %s: %s", c.Name, t.State, t.Message)}
}

// startUpdate sends StartUpdate for an image the BMC holds until then
// (pushed with OnStartUpdateRequest), once the BMC has verified it (the
// push's task ended: bmclib waits for Supermicro's "Verify" task). It is
// recorded before it is sent: a resumed attempt never sends it twice.
func (r *run) startUpdate(c firmware.Component, limit time.Duration) error {
	if _, err := r.followTask("wait for the BMC to verify "+c.Name+"'s package", c, limit,
		func(m taskMeaning) bool { return m == taskDone || m == taskStaged }); err != nil {
		return err
	}
	backoff := r.a.backoff()
	for try := 1; ; try++ {
		r.progress.FwStartSent = true
		if err := r.record("starting the update of " + c.Name + " (StartUpdate)"); err != nil {
			r.progress.FwStartSent = false // nothing was sent: a retry may send it
			return err
		}
		acc, err := r.c.StartUpdate(r.ctx)
		switch {
		case err == nil:
			r.progress.FwTask = acc.Task
			// Best effort: a retry that finds no task judges by the version.
			r.record("update of " + c.Name + " started (" + acc.String() + ")")
			return nil
		case !updateAnswered(err):
			r.progress.FwTask = "" // the verify task says nothing of the install
			r.heartbeat("the StartUpdate of " + c.Name + " got no answer; reading the version")
			return nil
		}
		r.progress.FwStartSent = false
		r.record("StartUpdate of " + c.Name + " refused: " + describe(err)) // best effort, as for the request
		// Busy: a package still being verified (its task unknown to an
		// attempt that resumed), another update; asked again a few times.
		if !updateBusy(err) || try >= r.a.attempts() {
			return &stepError{"start the update of " + c.Name, err}
		}
		if !r.sleep(backoff) {
			return &stepError{"start the update of " + c.Name, r.ctx.Err()}
		}
		backoff = min(2*backoff, maxBackoff)
	}
}
