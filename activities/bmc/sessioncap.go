package bmc

import (
	"fmt"
	"time"
)

// A BMC allows few sessions at once and refuses a login past its cap until
// a holder logs out or a session expires when idle (SessionService
// SessionTimeout). The client knows how its vendors refuse
// (bmcclient.SessionCapped); the refusal is transient: rackroll waits for a
// place, within the step's time, and says so when the step runs out
// (docs/evidence.md, "Slow BMCs and session caps").

// sessionWait is how long a run has waited for a place at a capped BMC.
type sessionWait struct {
	since time.Time
	pause time.Duration
	tries int
}

// awaitSession pauses before the next login at a capped BMC. It returns
// the failure to report instead once the next try would not fit in the
// step's time (the activity's deadline, less a margin for the answer to
// reach the workflow; without a deadline, after Attempts tries) or the
// run was cancelled.
func (r *run) awaitSession(step string, w *sessionWait, err error) error {
	if w.since.IsZero() {
		w.since, w.pause = time.Now(), r.a.backoff()
	}
	w.tries++
	dl, ok := r.ctx.Deadline()
	if (ok && time.Until(dl) < w.pause+sessionWaitMargin) || (!ok && w.tries >= r.a.attempts()) {
		return &stepError{step, &failure{kindTransient, fmt.Sprintf(
			"the BMC refused a new session for %s: it holds as many sessions as it allows (%s); "+
				"sessions free up when their holders log out or after the BMC's idle timeout (SessionService SessionTimeout); "+
				"if this persists, close stale sessions on the BMC",
			time.Since(w.since).Round(time.Second), describe(err))}}
	}
	r.heartbeat(step + ": waiting for the BMC to allow another session")
	if !r.sleep(w.pause) {
		return &stepError{step, r.ctx.Err()}
	}
	w.pause = min(2*w.pause, maxBackoff)
	return nil
}

// sessionWaitMargin leaves the step time to report why it gave up.
const sessionWaitMargin = 5 * time.Second
