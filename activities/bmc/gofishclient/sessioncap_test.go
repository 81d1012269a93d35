package gofishclient

import (
	"errors"
	"testing"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stmcginnis/gofish/schemas"
	"github.com/stretchr/testify/assert"
)

// The cap's refusal is known by its words, whatever the status; a busy or
// broken BMC, or wrong credentials, is not the cap.
func TestSessionCappedByVendor(t *testing.T) {
	idrac := `{"error":{"@Message.ExtendedInfo":[{"Message":"The maximum number of user sessions is reached.","MessageId":"IDRAC.2.1.RAC0218"}],"code":"Base.1.5.GeneralError","message":"A general error has occurred. See ExtendedInfo for more information"}}`
	base := `{"error":{"code":"Base.1.12.SessionLimitExceeded","message":"The session establishment failed due to the number of simultaneous sessions exceeding the limit of the implementation."}}`
	internal := `{"error":{"code":"Base.1.12.InternalError","message":"The request failed due to an internal service error."}}`
	for _, tc := range []struct {
		name   string
		err    error
		capped bool
	}{
		{"iDRAC 503 RAC0218 (gofish#75)", schemas.ConstructError(503, []byte(idrac)), true},
		{"iDRAC 400 RAC0218", schemas.ConstructError(400, []byte(idrac)), true},
		{"Base SessionLimitExceeded 503", schemas.ConstructError(503, []byte(base)), true},
		{"busy 503", schemas.ConstructError(503, []byte(internal)), false},
		{"401 wrong password", schemas.ConstructError(401, []byte(`{"error":{"code":"Base.1.12.NoValidSession","message":"The user name or password is not valid."}}`)), false},
		{"not Redfish", errors.New("maximum number of user sessions"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.capped, sessionCapped(tc.err))
			assert.Equal(t, tc.capped, bmcclient.SessionCapped(redfishError(tc.err)), "what the activities see")
			if tc.capped {
				assert.False(t, busy(redfishError(tc.err)), "quick tries cannot free a session")
			}
		})
	}
}
