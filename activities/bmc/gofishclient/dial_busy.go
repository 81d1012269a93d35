package gofishclient

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
)

// A connect is several requests (the service root, the session, the
// authenticated service root). A BMC whose web server is busy answers
// some of them 5xx; starting the whole connect over on each would spend
// the step's tries on requests that had already worked, so each request
// gets a few quick tries of its own first. A session POST answered 5xx
// that the BMC did carry out leaves a session behind, as a restarted
// connect always did; it expires after the SessionService's timeout.
const (
	busyTries   = 3
	busyBackoff = 250 * time.Millisecond
)

// onBusy runs req again while the BMC answers it 5xx or 429, up to
// busyTries in all; any other outcome is returned at once, in bmcclient's
// terms (redfishError).
func onBusy(ctx context.Context, req func() error) error {
	var err error
	for i := 1; ; i++ {
		if err = redfishError(req()); err == nil || !busy(err) || i == busyTries {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(i) * busyBackoff):
		}
	}
}

// busy: the BMC answered, but could not serve the request now. A login
// refused at the session cap is not: quick tries cannot free a session
// (the step waits for one: bmcclient.SessionCapped).
func busy(err error) bool {
	var se *bmcclient.StatusError
	if !errors.As(err, &se) || se.SessionCap {
		return false
	}
	return se.Status >= 500 || se.Status == http.StatusTooManyRequests
}
