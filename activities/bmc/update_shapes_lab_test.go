package bmc

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func packageServer(t *testing.T) string {
	pkgs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("package")) }))
	t.Cleanup(pkgs.Close)
	return pkgs.URL
}

// Each update shape of issue 48 ends at the version, the inventory's
// evidence, with one update request per component: Targets where the
// ActionInfo requires them, a task announced by 204 + Location, and
// Supermicro X12's push held until StartUpdate, its BIOS Scheduled until
// the host resets.
func TestLabApplyFirmwareAsEachBMCAsks(t *testing.T) {
	pkgs := packageServer(t)
	simple := firmware.Apply{Method: firmware.MethodSimpleUpdate}
	push := firmware.Apply{Method: firmware.MethodMultipartPush}
	for _, c := range []struct {
		profile     string
		comp        firmware.Component
		to          string
		hostStarted bool
		bmcResets   int
		starts      int
		state       string // a task state the heartbeat named on the way
	}{
		{"targets-required", component("bios", "1.46", "http://fw.example/bios-1.46.bin", simple), "P79 v1.46 (12/06/2017)", true, 0, 0, "Completed"},
		{"tasks-204", component("bios", "1.46", "http://fw.example/bios-1.46.bin", simple), "P79 v1.46 (12/06/2017)", true, 0, 0, "Completed"},
		{"tasks-204", component("bmc", "4.5", "http://fw.example/bmc-4.5.bin", simple), "4.5", false, 1, 0, ""},
		{"supermicro-x12", component("bios", "2.1", pkgs+"/fw/bios-2.1.bin", push), "2.1", true, 0, 1, "Scheduled 0% (staged until a host reset)"},
		{"supermicro-x12", component("bmc", "01.02.00", pkgs+"/fw/bmc-01.02.00.bin", push), "01.02.00", false, 1, 1, ""},
	} {
		t.Run(c.profile+"/"+c.comp.Kind, func(t *testing.T) {
			l := newLab(t, redfishtest.Profile(c.profile))
			rec := &recorder{l: l}
			l.a.Heartbeats = rec
			start := time.Now()
			res, err := l.apply(c.comp, l.env)
			require.NoError(t, err)
			assert.True(t, res.Applied)
			assert.Equal(t, c.to, res.To)
			assert.Equal(t, c.hostStarted, res.HostStarted)
			assert.Equal(t, 1, l.bmc.State().UpdateRequests, "one update request")
			assert.Equal(t, c.starts, l.bmc.StartUpdates())
			assert.Equal(t, c.bmcResets, l.count(events.BMCReset))
			assert.Less(t, time.Since(start), 2*time.Second, "no wait to the task limit")
			if c.state != "" {
				rec.first(t, "naming "+c.state, func(p progress) bool { return strings.HasPrefix(p.FwState, c.state) })
			}

			again, err := l.apply(c.comp, l.newEnv())
			require.NoError(t, err)
			assert.False(t, again.Applied)
			assert.Equal(t, 1, l.bmc.State().UpdateRequests, "at baseline: nothing sent")
		})
	}
}

// A BMC refusing the request fails typed at once, non-retryable, in its
// own words: sushy-tools' "Manager is not currently a supported Target."
// for the BMC's own firmware. Nothing started: the record is cleared.
func TestLabARefusedUpdateQuotesTheBMC(t *testing.T) {
	l := newLab(t, redfishtest.Profile("targets-required"))
	rec := &recorder{l: l}
	l.a.Heartbeats = rec
	start := time.Now()
	_, err := l.apply(component("bmc", "4.5", "http://fw.example/bmc-4.5.bin", firmware.Apply{Method: firmware.MethodSimpleUpdate}), l.env)
	ae := appError(t, err, ErrTypeRejected, false)
	assert.Contains(t, ae.Error(), "request the update of the bmc: HTTP 400 Base.1.12.GeneralError: Manager is not currently a supported Target.")
	assert.Less(t, time.Since(start), time.Second, "at once")
	assert.Equal(t, 1, l.bmc.State().UpdateRequests)
	assert.False(t, rec.got[len(rec.got)-1].FwRequested, "the refusal started nothing")
	assert.Zero(t, l.count(events.FirmwareUpdate))
}

// A worker killed with the push, or the StartUpdate, in flight is resumed
// from its heartbeat: neither is sent twice, and the BIOS ends at the
// baseline.
func TestLabKilledAroundStartUpdateSendsEachOnce(t *testing.T) {
	pkgs := packageServer(t)
	comp := component("bios", "2.1", pkgs+"/fw/bios-2.1.bin", firmware.Apply{Method: firmware.MethodMultipartPush})
	for _, at := range []string{"MultipartUpload", "UpdateService.StartUpdate"} {
		t.Run(at, func(t *testing.T) {
			l := newLab(t, redfishtest.Profile("supermicro-x12"))
			l.a.Attempts = 2
			p := crashingProxy{at: at}
			dying := l.ep
			dying.Address = p.start(t, l.ep.Address)
			l.a.Heartbeats = serverOf{&p} // the records the server has when the worker dies
			_, err := l.env.ExecuteActivity(l.a.ApplyFirmware, ApplyFirmwareInput{Endpoint: dying, Component: comp, TaskLimit: time.Second, AwayLimit: time.Second})
			require.Error(t, err, "the first attempt's worker died")
			require.NotNil(t, p.atReset, "the request went out")
			assert.True(t, p.atReset.FwRequested && p.atReset.FwAwaitsStart, "recorded before the push: %+v", *p.atReset)

			retry := l.newEnv()
			retry.SetHeartbeatDetails(*p.atReset)
			res, err := l.apply(comp, retry)
			require.NoError(t, err)
			assert.Equal(t, "2.1", res.To)
			assert.Equal(t, 1, l.bmc.State().UpdateRequests, "one push")
			assert.Equal(t, 1, l.bmc.StartUpdates(), "one StartUpdate")
		})
	}
}

// serverOf is the worker's Temporal client as Activities.Heartbeats: what
// it records is what the server holds, the proxy's snapshot at its crash.
type serverOf struct{ p *crashingProxy }

func (s serverOf) RecordActivityHeartbeat(_ context.Context, _ []byte, details ...interface{}) error {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	s.p.last = details[0].(progress)
	return nil
}
