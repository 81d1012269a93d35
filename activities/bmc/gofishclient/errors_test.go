package gofishclient

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stmcginnis/gofish/schemas"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRedfishErrorKeepsGofishsText(t *testing.T) {
	assert.NoError(t, redfishError(nil))
	plain := errors.New("connection reset")
	assert.Same(t, plain, redfishError(plain), "not an answer: as it is")
	own := rejected("the BMC lists no ComputerSystem")
	assert.Same(t, own, redfishError(own))

	raw := schemas.ConstructError(401, []byte(`{"error":{"code":"Base.1.12.NoValidSession","message":"no session"}}`))
	wrapped := fmt.Errorf("read the System: %w", raw)
	err := redfishError(wrapped)
	var se *bmcclient.StatusError
	require.True(t, errors.As(err, &se))
	assert.Equal(t, []any{401, "Base.1.12.NoValidSession", "no session"}, []any{se.Status, se.Code, se.Message})
	assert.Equal(t, wrapped.Error(), err.Error())
	assert.ErrorIs(t, err, raw, "gofish's error stays reachable")
	assert.Same(t, err, redfishError(err), "put in bmcclient's terms once")

	coll := schemas.NewCollectionError()
	coll.Failures["/redfish/v1/AccountService/Accounts/3"] = raw
	err = redfishError(coll)
	var pe *bmcclient.PartialError
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, coll.Error(), err.Error())
	assert.True(t, bmcclient.Unauthorized(err), "a member's 401 is seen")
}

// Supermicro's refusals say what went wrong only in @Message.ExtendedInfo
// (bmclib's OemFirmwareAlreadyInUpdateMode); a repeat of the message is
// left out.
func TestRedfishErrorKeepsExtendedInfo(t *testing.T) {
	raw := schemas.ConstructError(400, []byte(`{"error":{"code":"Base.v1_4_0.GeneralError",
		"Message":"A general error has occurred. See ExtendedInfo for more information.",
		"@Message.ExtendedInfo":[{"MessageId":"SMC.1.0.OemFirmwareAlreadyInUpdateMode","Message":"Firmware is already in update mode."},
			{"MessageId":"Base.1.8.GeneralError","Message":"A general error has occurred. See ExtendedInfo for more information."},
			{"Message":"Reset the BMC to leave update mode."}]}}`))
	var se *bmcclient.StatusError
	require.True(t, errors.As(redfishError(raw), &se))
	assert.Equal(t, []string{"SMC.1.0.OemFirmwareAlreadyInUpdateMode: Firmware is already in update mode.", "Reset the BMC to leave update mode."}, se.Extended)
}
