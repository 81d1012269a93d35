package redfish

import (
	"net/http"
	"time"
)

func init() { register("idrac9-slow", idrac9Slow) }

// idrac9Slow is an iDRAC9 under load: every media action takes 20–40 s to
// answer (MediaDelay; `lab.timings.media` scales it down in tests), at
// most four sessions, and the fifth login refused with RAC0218 in a 400 —
// iDRAC reports show a 503 (idrac9), some clients also handle a 400, and
// rackroll must know the refusal by its message, whatever the status.
// Where each was learnt: docs/evidence.md, "Slow BMCs and session caps".
func idrac9Slow() Profile {
	p := idrac9()
	p.Name = "idrac9-slow"
	p.MediaDelay = 20 * time.Second
	p.SessionLimit = 4
	p.SessionLimitStatus = http.StatusBadRequest
	return p
}
