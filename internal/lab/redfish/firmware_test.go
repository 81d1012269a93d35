package redfish

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fwTime, bmcAway = time.Minute, 3 * time.Minute

func fwRig(t *testing.T, profile string) *rig {
	return newRig(t, func(c *Config) {
		c.Profile = profile
		c.Timings.Firmware, c.Timings.BMCReset = fwTime, bmcAway
	})
}

// inventory maps member ids to versions.
func (r *rig) inventory() map[string]string {
	r.t.Helper()
	out := map[string]string{}
	coll := r.do(http.MethodGet, firmwarePath, nil)
	require.Equal(r.t, http.StatusOK, coll.code)
	for _, m := range coll.body["Members"].([]any) {
		uri := m.(map[string]any)["@odata.id"].(string)
		rep := r.do(http.MethodGet, uri, nil)
		require.Equal(r.t, http.StatusOK, rep.code, uri)
		out[rep.body["Id"].(string)] = rep.body["Version"].(string)
	}
	return out
}

func (r *rig) simpleUpdate(image, applyTime string) reply {
	r.t.Helper()
	body := map[string]any{"ImageURI": image, "TransferProtocol": "HTTP"}
	if applyTime != "" {
		body["@Redfish.OperationApplyTime"] = applyTime
	}
	return r.do(http.MethodPost, simpleUpdatePath, body)
}

func (r *rig) push(file string) reply {
	r.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	p, _ := mw.CreateFormField("UpdateParameters")
	p.Write([]byte(`{"Targets": [], "@Redfish.OperationApplyTime": "Immediate"}`))
	f, _ := mw.CreateFormFile("UpdateFile", file)
	f.Write([]byte("firmware bytes"))
	mw.Close()
	req := httptest.NewRequest(http.MethodPost, pushPath, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.SetBasicAuth("root", testPassword)
	rec := r.serve(req)
	return reply{code: rec.Code, header: rec.Header()}
}

// dropped reports whether the BMC drops a request without an answer.
func (r *rig) dropped() (gone bool) {
	defer func() { gone = recover() == http.ErrAbortHandler }()
	r.do(http.MethodGet, rootPath, nil)
	return false
}

func TestIDRACStagesHostFirmwareUntilTheNextReset(t *testing.T) {
	r := fwRig(t, "idrac9")
	inv := r.inventory()
	assert.Equal(t, "1.13.2", inv["Installed-159-1.13.2__BIOS.Setup.1-1"])
	assert.Equal(t, "7.00.30.00", inv["Installed-25227-7.00.30.00__iDRAC.Embedded.1-1"])
	assert.Equal(t, "22.31.6", inv["Installed-14-22.31.6__NIC.Integrated.1-1-1"])
	assert.Len(t, inv, 4)
	bios := r.do(http.MethodGet, firmwarePath+"/Installed-159-1.13.2__BIOS.Setup.1-1", nil)
	assert.Equal(t, r.b.paths.system, field(bios.body, "RelatedItem").([]any)[0].(map[string]any)["@odata.id"])
	svc := r.do(http.MethodGet, updatePath, nil)
	assert.Equal(t, simpleUpdatePath, field(svc.body, "Actions", "#UpdateService.SimpleUpdate", "target"))
	assert.Equal(t, pushPath, svc.body["MultipartHttpPushUri"])

	// Immediate asked, staged anyway: iDRAC queues a job for the next reset.
	rep := r.simpleUpdate("http://fw.example/bios-1.14.0.exe", "Immediate")
	require.Equal(t, http.StatusAccepted, rep.code)
	loc := rep.header.Get("Location")
	r.clk.Advance(10 * fwTime)
	code, state := r.taskState(loc)
	assert.Equal(t, http.StatusAccepted, code)
	assert.Equal(t, "Pending", state)
	assert.Equal(t, "1.13.2", r.b.FirmwareVersions()[KindBIOS], "nothing changes before the host resets")

	require.Equal(t, http.StatusNoContent, r.reset("ForceRestart").code)
	r.clk.Advance(2*testTimings.PowerTransition + fwTime/2)
	rep = r.do(http.MethodGet, loc, nil)
	assert.Equal(t, "Running", rep.body["TaskState"])
	assert.InDelta(t, 50, rep.body["PercentComplete"], 2)
	assert.False(t, r.b.State().OSRunning, "POST waits for the install")
	r.clk.Advance(fwTime/2 + testTimings.Boot)
	_, state = r.taskState(loc)
	assert.Equal(t, "Completed", state)
	assert.True(t, r.b.State().OSRunning)
	inv = r.inventory()
	assert.Equal(t, "1.14.0", inv["Installed-159-1.14.0__BIOS.Setup.1-1"])
	assert.Equal(t, "1.13.2", inv["Previous-159-1.13.2__BIOS.Setup.1-1"], "the rollback image stays listed")
	assert.Equal(t, "1.14.0", field(r.system(), "BiosVersion"))
	assert.Equal(t, 1, r.b.State().UpdateRequests)
	assert.Equal(t, 1, r.count(events.FirmwareUpdate))
	assert.Equal(t, 1, r.count(events.FirmwareDone))
}

func TestILOBMCUpdateResetsTheBMCAndHostFirmwareWaitsForAReset(t *testing.T) {
	r := fwRig(t, "ilo5")
	inv := r.inventory()
	assert.Equal(t, "iLO 5 v2.81", inv["1"])
	assert.Equal(t, "U46 v1.64 (08/11/2022)", inv["2"])

	rep := r.simpleUpdate("https://fw.example/ilo/bmc-2.90.fwpkg", "")
	require.Equal(t, http.StatusAccepted, rep.code)
	loc := rep.header.Get("Location")
	r.clk.Advance(fwTime / 4)
	got := r.do(http.MethodGet, loc, nil)
	assert.Equal(t, "Running", got.body["TaskState"])
	assert.InDelta(t, 25, got.body["PercentComplete"], 2)
	busy := r.simpleUpdate("https://fw.example/ilo/bios-2.90.fwpkg", "")
	assert.Equal(t, http.StatusServiceUnavailable, busy.code, "one update at a time")
	assert.NotEmpty(t, busy.header.Get("Retry-After"))

	r.clk.Advance(fwTime)
	assert.True(t, r.dropped(), "the BMC reboots into its new firmware")
	r.clk.Advance(bmcAway)
	assert.False(t, r.dropped())
	code, _ := r.taskState(loc)
	assert.Equal(t, http.StatusNotFound, code, "its tasks went with the reboot")
	assert.Equal(t, "iLO 5 v2.90", r.inventory()["1"])
	assert.Equal(t, 1, r.count(events.BMCReset))

	// The System ROM installs now and is read by the host at its next start.
	rep = r.simpleUpdate("https://fw.example/ilo/bios-2.90.fwpkg", "")
	require.Equal(t, http.StatusAccepted, rep.code)
	r.clk.Advance(fwTime)
	_, state := r.taskState(rep.header.Get("Location"))
	assert.Equal(t, "Completed", state)
	assert.Equal(t, "U46 v1.64 (08/11/2022)", r.inventory()["2"], "Completed is not the new version")
	require.Equal(t, http.StatusOK, r.reset("ForceRestart").code)
	r.clk.Advance(2 * testTimings.PowerTransition)
	assert.Equal(t, "U46 v2.90 (08/11/2022)", r.inventory()["2"])
	assert.Equal(t, 3, r.b.State().UpdateRequests, "the busy refusal counts as a request")
	assert.Equal(t, map[string]int{KindBMC: 1, KindBIOS: 2}, r.b.UpdateRequestsByKind(), "by the kind each package installs")
}

func TestSupermicroTakesPushesWithTheHostOff(t *testing.T) {
	r := fwRig(t, "supermicro")
	assert.Equal(t, http.StatusNotFound, r.simpleUpdate("http://fw.example/bios-2.1.bin", "").code)
	assert.Equal(t, http.StatusConflict, r.push("bios-2.1.bin").code, "the host must be off for BIOS")
	require.Equal(t, http.StatusOK, r.reset("ForceOff").code)
	r.clk.Advance(testTimings.PowerTransition)
	require.Equal(t, http.StatusAccepted, r.push("bios-2.1.bin").code)
	busy := r.push("bmc-01.02.00.bin")
	assert.Equal(t, http.StatusBadRequest, busy.code)
	r.clk.Advance(fwTime)
	assert.Equal(t, "2.0", r.b.FirmwareVersions()[KindBIOS], "active at the next power-on")
	require.Equal(t, http.StatusOK, r.reset("On").code)
	r.clk.Advance(testTimings.PowerTransition)
	assert.Equal(t, "2.1", r.b.FirmwareVersions()[KindBIOS])
	assert.Equal(t, 3, r.b.State().UpdateRequests, "three pushes; the SimpleUpdate went nowhere")
}

func TestFirmwareFaults(t *testing.T) {
	for _, c := range []struct {
		kind  faults.Kind
		state string
	}{
		{faults.FirmwareException, "Exception"},
		{faults.FirmwareStuck, "Running"},
		{faults.FirmwareUnchanged, "Completed"},
	} {
		t.Run(string(c.kind), func(t *testing.T) {
			r := fwRig(t, "dmtf")
			r.b.SetFault(c.kind, 0)
			rep := r.simpleUpdate("http://fw.example/bmc-4.5.0.bin", "")
			require.Equal(t, http.StatusAccepted, rep.code)
			r.clk.Advance(10*fwTime + bmcAway)
			got := r.do(http.MethodGet, rep.header.Get("Location"), nil)
			assert.Equal(t, c.state, got.body["TaskState"])
			assert.Equal(t, "4.4.6521", r.b.FirmwareVersions()[KindBMC])
			if c.kind == faults.FirmwareStuck {
				assert.LessOrEqual(t, got.body["PercentComplete"], 40.0)
				assert.Equal(t, http.StatusServiceUnavailable, r.simpleUpdate("http://fw.example/bios-1.0.bin", "").code)
			}
		})
	}
}

func TestUpdatesThatCannotInstall(t *testing.T) {
	r := newRig(t, func(c *Config) {
		c.Profile = "dmtf"
		c.Fetchable = func(image string) bool { return !strings.Contains(image, "missing") }
	})
	for image, why := range map[string]string{
		"http://fw.example/missing/bios-1.0.bin": "could not be downloaded",
		"http://fw.example/ubuntu.iso":           "not a valid update package",
		"http://fw.example/storage-1.0.bin":      "not a valid update package", // dmtf lists no storage controller
	} {
		rep := r.simpleUpdate(image, "OnReset")
		require.Equal(t, http.StatusAccepted, rep.code)
		got := r.do(http.MethodGet, rep.header.Get("Location"), nil)
		assert.Equal(t, "Exception", got.body["TaskState"], image)
		assert.Contains(t, field(got.body, "Messages").([]any)[0].(map[string]any)["Message"], why)
	}
	assert.Equal(t, http.StatusBadRequest, r.simpleUpdate("http://fw.example/bios-1.0.bin", "Later").code)
}

func TestSplitShown(t *testing.T) {
	for in, want := range map[string][2]string{
		"U46 v1.64 (08/11/2022)": {"U46 v%s (08/11/2022)", "1.64"},
		"iLO 5 v2.81":            {"iLO 5 v%s", "2.81"},
		"7.00.30.00":             {"%s", "7.00.30.00"},
		"AFE120J":                {"%s", "AFE120J"},
	} {
		f, n := splitShown(in)
		assert.Equal(t, want, [2]string{f, n}, in)
	}
}
