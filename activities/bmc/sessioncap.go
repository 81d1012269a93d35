package bmc

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/stmcginnis/gofish/schemas"
)

// A BMC allows few sessions at once and refuses a login past its cap until
// a holder logs out or a session expires when idle (SessionService
// SessionTimeout). The refusal is transient: rackroll waits for a place,
// within the step's time, and says so when the step runs out. How vendors
// refuse (docs/evidence.md, "Slow BMCs and session caps"):
//   - iDRAC: 503 with MessageId IDRAC.x.RAC0218 "The maximum number of user
//     sessions is reached." (stmcginnis/gofish#75,
//     bb-Ricardo/check_redfish#89); some clients also look for RAC0218 in a
//     400, so the status is not what decides.
//   - DMTF Base registry: SessionLimitExceeded, "...the number of
//     simultaneous sessions exceeding the limit of the implementation"
//     (Base 1.x), which other BMCs answer with.
//
// HPE documents that iLO accepts a limited number of sessions that stay
// until logout or expiry (the HPE developer blog "Managing iLO sessions
// with Redfish") without naming the refusal: it is matched by these
// words.
var sessionCapWords = []string{"rac0218", "sessionlimitexceeded", "maximum number of user sessions", "simultaneous sessions"}

// sessionCapped: err is a login refused because the BMC holds as many
// sessions as it allows.
func sessionCapped(err error) bool {
	var rf *schemas.Error
	if !errors.As(err, &rf) {
		return false
	}
	if c := rf.HTTPReturnedStatusCode; c != http.StatusBadRequest && c != http.StatusForbidden &&
		c != http.StatusTooManyRequests && c < 500 {
		return false
	}
	body := strings.ToLower(err.Error())
	for _, w := range sessionCapWords {
		if strings.Contains(body, w) {
			return true
		}
	}
	return false
}

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
