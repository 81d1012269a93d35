package gofishclient

import (
	"errors"
	"testing"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An UpdateService as OpenBMC's bmcweb and Supermicro's X12 show theirs:
// the SimpleUpdate action's ActionInfo and allowable protocols, the push's
// apply times, StartUpdate.
func TestParseUpdateShape(t *testing.T) {
	s := parseUpdateShape([]byte(`{
		"MultipartHttpPushUri": "/redfish/v1/UpdateService/upload",
		"MultipartHttpPushUri@Redfish.OperationApplyTimeSupport": {"SupportedValues": ["OnStartUpdateRequest"]},
		"Actions": {
			"#UpdateService.SimpleUpdate": {"target": "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate",
				"@Redfish.ActionInfo": "/redfish/v1/UpdateService/SimpleUpdateActionInfo",
				"TransferProtocol@Redfish.AllowableValues": ["HTTP", "HTTPS"]},
			"#UpdateService.StartUpdate": {"target": "/redfish/v1/UpdateService/Actions/UpdateService.StartUpdate"}}}`))
	assert.Equal(t, updateShape{simple: "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate",
		actionInfo: "/redfish/v1/UpdateService/SimpleUpdateActionInfo", protocols: []string{"HTTP", "HTTPS"},
		push: "/redfish/v1/UpdateService/upload", pushTimes: []string{"OnStartUpdateRequest"},
		start: "/redfish/v1/UpdateService/Actions/UpdateService.StartUpdate"}, s)
	assert.Equal(t, updateShape{}, parseUpdateShape([]byte(`{"Id": "UpdateService"}`)), "nothing declared")
}

// The ActionInfo's parameters by name (DSP0268 ActionInfo: Name, Required,
// AllowableValues), as bmcweb and rsd-lib's samples show them.
func TestActionParams(t *testing.T) {
	p, err := actionParams([]byte(`{"@odata.type": "#ActionInfo.v1_2_0.ActionInfo", "Id": "SimpleUpdateActionInfo",
		"Parameters": [
			{"Name": "ImageURI", "Required": true, "DataType": "String"},
			{"Name": "TransferProtocol", "Required": false, "DataType": "String", "AllowableValues": ["HTTPS"]},
			{"Name": "Targets", "Required": true, "DataType": "StringArray"},
			{"Required": true}]}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]actionParam{
		"ImageURI": {Required: true}, "TransferProtocol": {Allowable: []string{"HTTPS"}}, "Targets": {Required: true},
	}, p)
	_, err = actionParams([]byte(`<html>`))
	assert.ErrorContains(t, err, "not valid JSON")
}

func TestSimpleUpdateBody(t *testing.T) {
	req := bmcclient.UpdateRequest{Image: "http://fw.example/bios-1.14.0.exe", Kind: "bios", RelatedItem: []string{"/redfish/v1/Systems/1"}}
	targets := func(allowed []string) ([]string, error) {
		return chooseTargets(req.Kind, req.RelatedItem, allowed, func() (string, error) { return "/redfish/v1/Systems/1", nil })
	}
	body := func(shape updateShape, params map[string]actionParam, r bmcclient.UpdateRequest) (map[string]any, error) {
		return simpleUpdateBody(r, shape, params, targets)
	}
	annotated := updateShape{protocols: []string{"HTTP", "HTTPS"}}

	// No ActionInfo: what the action's annotation allows, nothing else.
	b, err := body(annotated, nil, req)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"ImageURI": req.Image, "TransferProtocol": "HTTP"}, b)
	b, _ = body(updateShape{}, nil, req)
	assert.Equal(t, map[string]any{"ImageURI": req.Image}, b, "nothing declares TransferProtocol: the scheme says it")
	b, _ = body(updateShape{protocols: []string{"HTTPS", "NFS"}}, nil, req)
	assert.NotContains(t, b, "TransferProtocol", "HTTP is not among the allowed")

	// The ActionInfo requires Targets and has no TransferProtocol.
	info := map[string]actionParam{"ImageURI": {Required: true}, "Targets": {Required: true}}
	onReset := req
	onReset.ApplyTime = "OnReset"
	b, err = body(annotated, info, onReset)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"ImageURI": req.Image, "Targets": []string{"/redfish/v1/Systems/1"},
		"@Redfish.OperationApplyTime": "OnReset"}, b)

	// Targets declared, not required: not sent.
	b, _ = body(annotated, map[string]actionParam{"Targets": {}, "TransferProtocol": {}}, req)
	assert.Equal(t, map[string]any{"ImageURI": req.Image, "TransferProtocol": "HTTP"}, b)

	// A required protocol the image's scheme is not among: refused, named.
	_, err = body(annotated, map[string]actionParam{"TransferProtocol": {Required: true, Allowable: []string{"SCP"}}}, req)
	assert.EqualError(t, err, "TransferProtocol: the image http://fw.example/bios-1.14.0.exe is fetched over HTTP, which the BMC's SimpleUpdate ActionInfo does not allow (allowed: SCP)")

	// A required parameter rackroll does not send: refused, nothing sent.
	_, err = body(updateShape{actionInfo: "/x/SimpleUpdateActionInfo"}, map[string]actionParam{"Username": {Required: true}}, req)
	var f *bmcclient.Failure
	require.True(t, errors.As(err, &f))
	assert.Equal(t, bmcclient.Rejected, f.Kind)
	assert.Contains(t, err.Error(), "requires the parameter Username")
}

func TestChooseTargets(t *testing.T) {
	system := func() (string, error) { return "/redfish/v1/Systems/1", nil }
	unread := func() (string, error) { t.Fatal("the owner is read only when needed"); return "", nil }
	got, err := chooseTargets("bios", []string{"/redfish/v1/Systems/1/Bios"}, nil, unread)
	require.NoError(t, err)
	assert.Equal(t, []string{"/redfish/v1/Systems/1/Bios"}, got, "the member's RelatedItem")

	got, _ = chooseTargets("bios", nil, nil, system)
	assert.Equal(t, []string{"/redfish/v1/Systems/1"}, got, "no RelatedItem: the System")

	got, _ = chooseTargets("nic", []string{"/redfish/v1/Chassis/1/NetworkAdapters/1"}, []string{"/redfish/v1/Systems/1"}, system)
	assert.Equal(t, []string{"/redfish/v1/Systems/1"}, got, "only what the BMC allows")

	_, err = chooseTargets("bmc", nil, []string{"/redfish/v1/Systems/1"}, func() (string, error) { return "/redfish/v1/Managers/1", nil })
	assert.EqualError(t, err, "Targets: the bmc firmware applies to /redfish/v1/Managers/1, which the BMC does not list (allowed: /redfish/v1/Systems/1)")
}

func TestPushApplyTime(t *testing.T) {
	for _, c := range []struct {
		asked     string
		supported []string
		canStart  bool
		send      string
		awaits    bool
		err       string
	}{
		{"", nil, true, "", false, ""},                // nothing listed: as asked, Immediate left out
		{"OnReset", nil, false, "OnReset", false, ""}, // as asked
		{"", []string{"Immediate", "OnReset"}, false, "Immediate", false, ""},
		{"OnReset", []string{"OnReset"}, false, "OnReset", false, ""},
		// Supermicro X12: the image waits for StartUpdate.
		{"", []string{"OnStartUpdateRequest"}, true, "OnStartUpdateRequest", true, ""},
		{"OnReset", []string{"Immediate", "OnStartUpdateRequest"}, true, "OnStartUpdateRequest", true, ""},
		{"", []string{"OnStartUpdateRequest"}, false, "", false, `apply.applyTime: "Immediate" is not an apply time the BMC lists for pushes (MultipartHttpPushUri@Redfish.OperationApplyTimeSupport: OnStartUpdateRequest)`},
		{"OnReset", []string{"Immediate"}, true, "", false, `apply.applyTime: "OnReset" is not an apply time the BMC lists for pushes (MultipartHttpPushUri@Redfish.OperationApplyTimeSupport: Immediate)`},
	} {
		send, awaits, err := pushApplyTime(c.asked, c.supported, c.canStart)
		if c.err != "" {
			assert.EqualError(t, err, c.err)
			continue
		}
		require.NoError(t, err, "%+v", c)
		assert.Equal(t, c.send, send, "%+v", c)
		assert.Equal(t, c.awaits, awaits, "%+v", c)
	}
	assert.JSONEq(t, `{"Targets": [], "@Redfish.OperationApplyTime": "OnStartUpdateRequest"}`, pushParameters(nil, "OnStartUpdateRequest"))
	assert.JSONEq(t, `{"Targets": ["/redfish/v1/Managers/1"]}`, pushParameters([]string{"/redfish/v1/Managers/1"}, ""))
}

// Tasks however the BMC announces them.
func TestAnnouncedTask(t *testing.T) {
	for name, c := range map[string]struct {
		location, body, want string
	}{
		"Location on a 202 or a 204 (sushy-tools)": {"/redfish/v1/TaskService/Tasks/42", "", "/redfish/v1/TaskService/Tasks/42"},
		"an absolute Location":                     {"https://10.0.0.1/redfish/v1/TaskService/Tasks/7?x=1", "", "/redfish/v1/TaskService/Tasks/7?x=1"},
		"a Task in the body: the task itself": {"", `{"@odata.type": "#Task.v1_4_3.Task", "@odata.id": "/redfish/v1/TaskService/Tasks/1",
			"TaskMonitor": "/redfish/v1/TaskMonitor/fa37J"}`, "/redfish/v1/TaskService/Tasks/1"},
		"a TaskMonitor alone":            {"", `{"TaskMonitor": "/redfish/v1/TaskMonitor/fa37J"}`, "/redfish/v1/TaskMonitor/fa37J"},
		"an @odata.id under TaskService": {"", `{"@odata.id": "/redfish/v1/TaskService/Tasks/JID_1"}`, "/redfish/v1/TaskService/Tasks/JID_1"},
		// bmclib's Supermicro answer: the task only in a message's args.
		"a task URI in MessageArgs": {"", `{"Accepted": {"code": "Base.v1_4_0.Accepted", "@Message.ExtendedInfo": [{"MessageId": "Base.1.4.Success",
			"MessageArgs": ["/redfish/v1/TaskService/Tasks/3"]}]}}`, "/redfish/v1/TaskService/Tasks/3"},
		"a result that is no task": {"", `{"@odata.id": "/redfish/v1/UpdateService", "@Message.ExtendedInfo": [{"MessageId": "Base.1.8.Success"}]}`, ""},
		"no body":                  {"", "", ""},
	} {
		assert.Equal(t, c.want, announcedTask(c.location, []byte(c.body)), name)
	}
}
