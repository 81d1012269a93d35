package redfish

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pushWith pushes file with the UpdateParameters params.
func (r *rig) pushWith(file, params string) reply {
	r.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	p, _ := mw.CreateFormField("UpdateParameters")
	p.Write([]byte(params))
	f, _ := mw.CreateFormFile("UpdateFile", file)
	f.Write([]byte("firmware bytes"))
	mw.Close()
	req := httptest.NewRequest(http.MethodPost, pushPath, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.SetBasicAuth("root", testPassword)
	rec := r.serve(req)
	return reply{code: rec.Code, header: rec.Header()}
}

func errorMessage(rep reply) any { return field(rep.body, "error", "message") }

func TestTargetsRequiredByTheActionInfo(t *testing.T) {
	r := fwRig(t, "targets-required")
	simple := field(r.do(http.MethodGet, updatePath, nil).body, "Actions", "#UpdateService.SimpleUpdate").(map[string]any)
	assert.Equal(t, simpleUpdateInfoPath, simple["@Redfish.ActionInfo"])
	assert.NotContains(t, simple, "TransferProtocol@Redfish.AllowableValues")
	info := r.do(http.MethodGet, simpleUpdateInfoPath, nil)
	require.Equal(t, http.StatusOK, info.code)
	assert.Equal(t, []any{
		map[string]any{"Name": "ImageURI", "Required": true, "DataType": "String"},
		map[string]any{"Name": "Targets", "Required": true, "DataType": "StringArray"},
	}, info.body["Parameters"])

	image := "http://fw.example/bios-1.46.bin"
	for _, c := range []struct {
		body map[string]any
		says string
	}{
		{map[string]any{"ImageURI": image}, "Missing ImageURI and/or Targets."},
		{map[string]any{"ImageURI": image, "Targets": []string{r.b.paths.system}, "TransferProtocol": "HTTP"},
			"The parameter TransferProtocol for the action UpdateService.SimpleUpdate is not supported on the target resource."},
		{map[string]any{"ImageURI": "http://fw.example/bmc-4.5.bin", "Targets": []string{r.b.paths.manager}}, "Manager is not currently a supported Target."},
		{map[string]any{"ImageURI": image, "Targets": []string{"/redfish/v1/Systems/other"}},
			"The value /redfish/v1/Systems/other for Targets does not name what the package bios-1.46.bin updates."},
	} {
		rep := r.do(http.MethodPost, simpleUpdatePath, c.body)
		assert.Equal(t, http.StatusBadRequest, rep.code, c.says)
		assert.Equal(t, c.says, errorMessage(rep))
	}
	rep := r.do(http.MethodPost, simpleUpdatePath, map[string]any{"ImageURI": image, "Targets": []string{r.b.paths.system}})
	require.Equal(t, http.StatusAccepted, rep.code)
	r.clk.Advance(fwTime)
	_, state := r.taskState(rep.header.Get("Location"))
	assert.Equal(t, "Completed", state)
	assert.Equal(t, 5, r.b.State().UpdateRequests, "refused ones count")
	assert.Equal(t, map[string]int{KindBIOS: 4, KindBMC: 1}, r.b.UpdateRequestsByKind())
}

func TestTasksAnnouncedWith204AndLocation(t *testing.T) {
	r := fwRig(t, "tasks-204")
	rep := r.simpleUpdate("http://fw.example/bios-1.46.bin", "")
	require.Equal(t, http.StatusNoContent, rep.code)
	assert.Nil(t, rep.body, "no body")
	loc := rep.header.Get("Location")
	code, state := r.taskState(loc)
	assert.Equal(t, http.StatusAccepted, code)
	assert.Equal(t, "Running", state)
	r.clk.Advance(fwTime)
	_, state = r.taskState(loc)
	assert.Equal(t, "Completed", state)
}

func TestSupermicroX12InstallsOnStartUpdate(t *testing.T) {
	r := fwRig(t, "supermicro-x12")
	svc := r.do(http.MethodGet, updatePath, nil).body
	assert.Equal(t, startUpdatePath, field(svc, "Actions", "#UpdateService.StartUpdate", "target"))
	assert.Equal(t, []any{"OnStartUpdateRequest"}, field(svc, "MultipartHttpPushUri@Redfish.OperationApplyTimeSupport", "SupportedValues"))
	assert.Nil(t, field(svc, "Actions", "#UpdateService.SimpleUpdate"))
	start := func() reply { return r.do(http.MethodPost, startUpdatePath, map[string]any{}) }

	nothing := start()
	assert.Equal(t, http.StatusBadRequest, nothing.code)
	assert.Contains(t, errorMessage(nothing), "push one first")
	assert.Equal(t, http.StatusBadRequest, r.pushWith("bios-2.1.bin", `{"Targets": [], "@Redfish.OperationApplyTime": "OnStartUpdateRequest"}`).code,
		"the push names its target")

	// The BIOS, with the host on (X12 has no power-off step): verified,
	// held, then Scheduled until the host resets.
	params := `{"Targets": ["` + r.b.paths.system + `/Bios"], "@Redfish.OperationApplyTime": "OnStartUpdateRequest"}`
	rep := r.pushWith("bios-2.1.bin", params)
	require.Equal(t, http.StatusAccepted, rep.code)
	verify := r.do(http.MethodGet, rep.header.Get("Location"), nil)
	assert.Equal(t, "BIOS Verify", verify.body["Name"])
	assert.Equal(t, http.StatusServiceUnavailable, start().code, "still verifying")
	assert.Equal(t, http.StatusBadRequest, r.pushWith("bmc-01.02.00.bin", params).code, "busy while an image waits")
	r.clk.Advance(fwTime)
	_, state := r.taskState(rep.header.Get("Location"))
	assert.Equal(t, "Completed", state, "verified")
	assert.Equal(t, "2.0", r.b.FirmwareVersions()[KindBIOS], "nothing installs without StartUpdate")

	started := start()
	require.Equal(t, http.StatusAccepted, started.code)
	loc := started.header.Get("Location")
	r.clk.Advance(fwTime)
	code, state := r.taskState(loc)
	assert.Equal(t, http.StatusAccepted, code)
	assert.Equal(t, "Scheduled", state)
	assert.Equal(t, "2.0", r.b.FirmwareVersions()[KindBIOS], "scheduled for the next host reset")
	require.Equal(t, http.StatusOK, r.reset("ForceRestart").code)
	r.clk.Advance(2*testTimings.PowerTransition + fwTime)
	_, state = r.taskState(loc)
	assert.Equal(t, "Completed", state)
	assert.Equal(t, "2.1", r.b.FirmwareVersions()[KindBIOS])

	// The BMC's own: installed on StartUpdate, then the BMC resets.
	rep = r.pushWith("bmc-01.02.00.bin", `{"Targets": ["`+r.b.paths.manager+`"], "@Redfish.OperationApplyTime": "OnStartUpdateRequest"}`)
	require.Equal(t, http.StatusAccepted, rep.code)
	r.clk.Advance(fwTime)
	require.Equal(t, http.StatusAccepted, start().code)
	r.clk.Advance(fwTime)
	assert.True(t, r.dropped(), "the BMC reboots into its new firmware")
	r.clk.Advance(bmcAway)
	assert.Equal(t, "01.02.00", r.b.FirmwareVersions()[KindBMC])
	assert.Equal(t, 4, r.b.State().UpdateRequests, "every push counts, refused ones too")
	assert.Equal(t, 2, r.b.StartUpdates(), "the refused ones started nothing")
}
