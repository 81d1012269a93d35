package bmc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

func component(kind, minimum, image string, apply firmware.Apply) firmware.Component {
	inv := map[string]string{"bios": "^(BIOS|System ROM)$", "bmc": "^(BMC|1|iLO.*)$|Remote Access Controller"}[kind]
	return firmware.Component{Name: "the " + kind, Kind: kind, Inventory: inv, Minimum: minimum, Image: image, Apply: apply}
}

func (l *labRig) apply(c firmware.Component, env *testsuite.TestActivityEnvironment) (ApplyFirmwareResult, error) {
	l.t.Helper()
	val, err := env.ExecuteActivity(l.a.ApplyFirmware, ApplyFirmwareInput{Endpoint: l.ep, Component: c, TaskLimit: 2 * time.Second, AwayLimit: 2 * time.Second})
	var res ApplyFirmwareResult
	if err == nil {
		require.NoError(l.t, val.Get(&res))
	}
	return res, err
}

func (l *labRig) newEnv() *testsuite.TestActivityEnvironment {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(l.a)
	return env
}

// Each vendor shape ends with the inventory showing the minimum, after
// the resets it needs, with one update request; a second run finds the
// baseline and sends nothing.
func TestLabApplyFirmware(t *testing.T) {
	pkgs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("package")) }))
	t.Cleanup(pkgs.Close)
	simple := firmware.Apply{Method: firmware.MethodSimpleUpdate}
	for _, c := range []struct {
		profile     string
		comp        firmware.Component
		to          string
		hostStarted bool
		bmcResets   int
	}{
		// iDRAC stages the BIOS as a job until the host resets.
		{"idrac9", component("bios", "1.14.0", "http://fw.example/bios-1.14.0.exe", firmware.Apply{Method: firmware.MethodSimpleUpdate, ApplyTime: firmware.ApplyOnReset}), "1.14.0", true, 0},
		// iLO reboots itself into its new firmware: no host start.
		{"ilo5", component("bmc", "2.90", "http://fw.example/bmc-2.90.fwpkg", simple), "iLO 5 v2.90", false, 1},
		// iLO's System ROM is Completed at once and read at the next start.
		{"ilo5", component("bios", "U46 v2.90", "http://fw.example/bios-2.90.fwpkg", simple), "U46 v2.90 (08/11/2022)", true, 0},
		// Supermicro: pushed, with the host off first, started after.
		{"supermicro", component("bios", "2.1", pkgs.URL+"/fw/bios-2.1.bin", firmware.Apply{Method: firmware.MethodMultipartPush, HostOff: true}), "2.1", true, 0},
	} {
		t.Run(c.profile+"/"+c.comp.Kind, func(t *testing.T) {
			l := newLab(t, redfishtest.Profile(c.profile))
			res, err := l.apply(c.comp, l.env)
			require.NoError(t, err)
			assert.True(t, res.Applied)
			assert.Equal(t, c.to, res.To)
			assert.Equal(t, c.hostStarted, res.HostStarted)
			assert.Equal(t, 1, l.bmc.State().UpdateRequests)
			assert.Equal(t, c.bmcResets, l.count(events.BMCReset))
			assert.Equal(t, "On", l.bmc.State().Power, "the host is left on")

			again, err := l.apply(c.comp, l.newEnv())
			require.NoError(t, err)
			assert.False(t, again.Applied)
			assert.Equal(t, 1, l.bmc.State().UpdateRequests, "at baseline: nothing sent")
		})
	}
}

// Each fault fails typed, within the limit, naming the component.
func TestLabApplyFirmwareFaults(t *testing.T) {
	for _, c := range []struct {
		fault faults.Kind
		typ   string
		says  string
	}{
		{faults.FirmwareException, ErrTypeFirmwareException, "the bios: the update task ended Exception"},
		{faults.FirmwareStuck, ErrTypeFirmwareStuck, "the bios: the update task is still Running"},
		{faults.FirmwareUnchanged, ErrTypeFirmwareUnchanged, "the bios still shows U46 v1.64 (08/11/2022)"},
	} {
		t.Run(string(c.fault), func(t *testing.T) {
			l := newLab(t, redfishtest.Profile("ilo5"))
			l.bmc.SetFault(c.fault, 0)
			comp := component("bios", "U46 v2.90", "http://fw.example/bios-2.90.fwpkg", firmware.Apply{Method: firmware.MethodSimpleUpdate})
			start := time.Now()
			_, err := l.apply(comp, l.env)
			require.Error(t, err)
			var ae *temporal.ApplicationError
			require.True(t, errors.As(err, &ae), err)
			assert.Equal(t, c.typ, ae.Type())
			assert.True(t, ae.NonRetryable())
			assert.Contains(t, err.Error(), c.says)
			assert.Less(t, time.Since(start), 10*time.Second, "bounded by the limits")
			assert.Equal(t, 1, l.bmc.State().UpdateRequests)
		})
	}
}

// A worker killed with the update request in flight is resumed from its
// heartbeat without a second request: the lab counts one.
func TestLabKilledDuringTheUpdateRequestDoesNotUpdateTwice(t *testing.T) {
	l := newLab(t, redfishtest.Profile("idrac9"))
	l.a.Attempts = 2
	p := crashingProxy{at: "UpdateService.SimpleUpdate"}
	dying := l.ep
	dying.Address = p.start(t, l.ep.Address)
	l.env.SetOnActivityHeartbeatListener(p.heartbeat)
	comp := component("bios", "1.14.0", "http://fw.example/bios-1.14.0.exe", firmware.Apply{Method: firmware.MethodSimpleUpdate})
	_, err := l.env.ExecuteActivity(l.a.ApplyFirmware, ApplyFirmwareInput{Endpoint: dying, Component: comp, TaskLimit: time.Second, AwayLimit: time.Second})
	require.Error(t, err, "the first attempt's worker died")
	require.NotNil(t, p.atReset, "the update request went out")
	assert.True(t, p.atReset.FwRequested, "recorded before the request")

	retry := l.newEnv()
	retry.SetHeartbeatDetails(*p.atReset)
	res, err := l.apply(comp, retry)
	require.NoError(t, err)
	assert.Equal(t, "1.14.0", res.To)
	assert.Equal(t, 1, l.bmc.State().UpdateRequests, "the retry sent no second request")
}

// recorder is the worker's client as Activities.Heartbeats: it keeps each
// record with the number of update requests and resets the BMC had seen
// then.
type recorder struct {
	l   *labRig
	got []recorded
}

type recorded struct {
	progress
	requests, resets int
}

func (r *recorder) RecordActivityHeartbeat(_ context.Context, _ []byte, details ...interface{}) error {
	resets := r.l.count(events.Reset) + r.l.count(events.PowerOn) + r.l.count(events.PowerOff)
	r.got = append(r.got, recorded{details[0].(progress), r.l.bmc.State().UpdateRequests, resets})
	return nil
}

// first is the first record that has.
func (r *recorder) first(t *testing.T, what string, has func(progress) bool) recorded {
	t.Helper()
	for _, g := range r.got {
		if has(g.progress) {
			return g
		}
	}
	t.Fatalf("no record %s among %+v", what, r.got)
	return recorded{}
}

// The SDK batches an attempt's heartbeats after its first, so the record
// of the request, after the power-off's waits, could still be in the
// batch when a worker dies with the update under way. With the worker's
// client the record goes to the server before the request is sent, and
// the task monitor right after it is accepted.
func TestLabTheUpdateIsRecordedWithTemporalBeforeItIsSent(t *testing.T) {
	pkgs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("package")) }))
	t.Cleanup(pkgs.Close)
	l := newLab(t, redfishtest.Profile("supermicro"))
	rec := &recorder{l: l}
	l.a.Heartbeats = rec
	comp := component("bios", "2.1", pkgs.URL+"/fw/bios-2.1.bin", firmware.Apply{Method: firmware.MethodMultipartPush, HostOff: true})
	_, err := l.apply(comp, l.env)
	require.NoError(t, err)
	before := rec.first(t, "of the request", func(p progress) bool { return p.FwRequested })
	assert.Empty(t, before.FwTask)
	assert.Zero(t, before.requests, "recorded before the request went out")
	after := rec.first(t, "of the task", func(p progress) bool { return p.FwTask != "" })
	assert.True(t, after.FwRequested)
	assert.Equal(t, 1, after.requests)
	assert.Equal(t, 1, l.bmc.State().UpdateRequests)

	// A client that cannot record: nothing is sent.
	l2 := newLab(t, redfishtest.Profile("ilo5"))
	l2.a.Heartbeats = failingRecorder{}
	_, err = l2.apply(component("bios", "U46 v2.90", "http://fw.example/bios-2.90.fwpkg", firmware.Apply{Method: firmware.MethodSimpleUpdate}), l2.env)
	require.ErrorContains(t, err, "record progress with Temporal")
	assert.Zero(t, l2.bmc.State().UpdateRequests)
}

type failingRecorder struct{}

func (failingRecorder) RecordActivityHeartbeat(context.Context, []byte, ...interface{}) error {
	return errors.New("server unavailable")
}
