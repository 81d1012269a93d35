package gofishclient

import (
	"context"
	"errors"
	"testing"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBootModeOfRawSystem(t *testing.T) {
	shown, mode, allowed := bootModeOf([]byte(`{"Boot":{"BootSourceOverrideMode":"Legacy","BootSourceOverrideMode@Redfish.AllowableValues":["Legacy","UEFI"]}}`))
	assert.Equal(t, []any{true, "Legacy", []string{"Legacy", "UEFI"}}, []any{shown, mode, allowed})
	shown, mode, allowed = bootModeOf([]byte(`{"Boot":{"BootSourceOverrideMode":null}}`))
	assert.Equal(t, []any{true, "", []string(nil)}, []any{shown, mode, allowed})
	shown, _, _ = bootModeOf([]byte(`{"Boot":{"BootSourceOverrideTarget":"None"}}`))
	assert.False(t, shown)
}

func TestAMissingResetActionInfoIsLookedUpOnce(t *testing.T) {
	s, c := newRedfishServer(t)
	s.docs["/redfish/v1/Systems/1"]["Actions"] = map[string]any{"#ComputerSystem.Reset": map[string]any{
		"target":              "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset",
		"@Redfish.ActionInfo": "/redfish/v1/Systems/1/ResetActionInfo"}} // and a 404 there
	for range 3 {
		sys, err := c.System(context.Background())
		require.NoError(t, err)
		assert.Empty(t, sys.ResetTypes)
	}
	assert.Equal(t, 1, s.count("/redfish/v1/Systems/1/ResetActionInfo"), "remembered for the client's life")
}

// A refusal reaches the caller in bmcclient's terms, with gofish's text.
func TestARefusalIsAStatusError(t *testing.T) {
	s, c := newRedfishServer(t)
	sys, err := c.System(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "On", sys.PowerState)

	s.refuse["/redfish/v1/Systems/1"] = 503
	_, err = c.System(context.Background())
	var se *bmcclient.StatusError
	require.True(t, errors.As(err, &se), "%T: %v", err, err)
	assert.Equal(t, []any{503, "Base.1.8.GeneralError", "refused /redfish/v1/Systems/1"}, []any{se.Status, se.Code, se.Message})
	assert.Contains(t, err.Error(), `"code":"Base.1.8.GeneralError"`, "the whole body, as gofish quotes it")
	assert.False(t, se.SessionCap)

	_, err = c.Task(context.Background(), "/redfish/v1/TaskService/Tasks/gone")
	assert.True(t, bmcclient.NotFound(err), "%v", err)
	assert.Empty(t, c.(bmcclient.Prober).SessionService(), "no SessionService: basic auth")
}
