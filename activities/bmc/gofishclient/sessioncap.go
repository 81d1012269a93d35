package gofishclient

import (
	"errors"
	"net/http"
	"strings"

	"github.com/stmcginnis/gofish/schemas"
)

// A BMC allows few sessions at once and refuses a login past its cap until
// a holder logs out or a session expires when idle (SessionService
// SessionTimeout). How vendors refuse (docs/evidence.md, "Slow BMCs and
// session caps"):
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
// words. Such an answer is marked bmcclient.StatusError.SessionCap.
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
