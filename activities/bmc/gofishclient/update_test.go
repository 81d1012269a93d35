package gofishclient

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const simpleTarget = "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate"

// What SimpleUpdate sends, read from the BMC, and the task however it was
// announced: in the body of a 200, then in Location.
func TestSimpleUpdateAsTheBMCAsks(t *testing.T) {
	s, c := newRedfishServer(t)
	ctx := context.Background()
	s.docs["/redfish/v1/UpdateService"] = map[string]any{"@odata.id": "/redfish/v1/UpdateService", "Id": "UpdateService",
		"Actions": map[string]any{"#UpdateService.SimpleUpdate": map[string]any{"target": simpleTarget,
			"@Redfish.ActionInfo":                      "/redfish/v1/UpdateService/SimpleUpdateActionInfo", // a 404: none
			"TransferProtocol@Redfish.AllowableValues": []string{"HTTPS"}}}}
	s.docs[simpleTarget] = map[string]any{"@odata.type": "#Task.v1_4_3.Task", "@odata.id": "/redfish/v1/TaskService/Tasks/9",
		"TaskState": "New", "TaskMonitor": "/redfish/v1/TaskMonitor/x"}
	acc, err := c.SimpleUpdate(ctx, bmcclient.UpdateRequest{Image: "http://fw.example/bios-1.1.bin", Kind: "bios"})
	require.NoError(t, err)
	assert.Equal(t, bmcclient.Accepted{Status: 200, Task: "/redfish/v1/TaskService/Tasks/9"}, acc)
	assert.Equal(t, map[string]any{"ImageURI": "http://fw.example/bios-1.1.bin"}, s.posted[simpleTarget], "HTTP is not allowed: no TransferProtocol")

	// An ActionInfo requiring Targets: the BMC's own firmware names the Manager.
	s.docs["/redfish/v1/UpdateService/SimpleUpdateActionInfo"] = map[string]any{"Parameters": []any{
		map[string]any{"Name": "ImageURI", "Required": true}, map[string]any{"Name": "Targets", "Required": true}}}
	s.docs["/redfish/v1/Managers"] = map[string]any{"Members": []any{ref("/redfish/v1/Managers/1")}}
	s.header[simpleTarget] = http.Header{"Location": {"/redfish/v1/TaskService/Tasks/10"}}
	acc, err = c.SimpleUpdate(ctx, bmcclient.UpdateRequest{Image: "https://fw.example/bmc-2.0.bin", Kind: "bmc", ApplyTime: "OnReset"})
	require.NoError(t, err)
	assert.Equal(t, "/redfish/v1/TaskService/Tasks/10", acc.Task, "Location first")
	assert.Equal(t, map[string]any{"ImageURI": "https://fw.example/bmc-2.0.bin", "Targets": []any{"/redfish/v1/Managers/1"},
		"@Redfish.OperationApplyTime": "OnReset"}, s.posted[simpleTarget])

	// A read before the request that fails: nothing was sent.
	s.refuse["/redfish/v1/UpdateService/SimpleUpdateActionInfo"] = 503
	_, err = c.SimpleUpdate(ctx, bmcclient.UpdateRequest{Image: "https://fw.example/bmc-2.0.bin", Kind: "bmc"})
	var ns *bmcclient.NotSent
	assert.True(t, errors.As(err, &ns), "%T: %v", err, err)
	assert.Equal(t, 503, bmcclient.StatusOf(err))

	_, err = c.StartUpdate(ctx)
	var f *bmcclient.Failure
	require.True(t, errors.As(err, &f), "%T: %v", err, err)
	assert.Equal(t, "the BMC's UpdateService offers no StartUpdate action", f.Msg)
}
