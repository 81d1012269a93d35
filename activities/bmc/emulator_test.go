package bmc

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

// These tests run the activities, as a worker would, against the lab's
// Redfish emulator over HTTP with gofish.

type labRig struct {
	t   *testing.T
	bmc *redfish.BMC
	log *events.Log
	ep  Endpoint
	a   *Activities
	env *testsuite.TestActivityEnvironment
}

func newLab(t *testing.T, mutate ...func(*redfish.Config)) *labRig {
	t.Helper()
	srv := redfishtest.Start(t, mutate...)
	t.Setenv("RR_TEST_BMC_USER", redfishtest.Username)
	t.Setenv("RR_TEST_BMC_PASS", testPassword)
	a := &Activities{
		PollInterval:   2 * time.Millisecond,
		Backoff:        time.Millisecond,
		Attempts:       15, // a 30 % failure rate must not exhaust a step
		ETagAttempts:   30,
		RequestTimeout: 10 * time.Second,
		ImageClient:    noImageServer,
	}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	return &labRig{t: t, bmc: srv.BMC, log: srv.Log, a: a, env: env, ep: Endpoint{
		BMM: redfishtest.BMM, Address: srv.URL,
		Credentials: CredentialRef{UsernameEnv: "RR_TEST_BMC_USER", PasswordEnv: "RR_TEST_BMC_PASS"},
	}}
}

func (l *labRig) count(kind string) int { return l.log.Count(kind, "rack1-c1") }

func (l *labRig) reimage(version string) (ReimageResult, error) {
	l.t.Helper()
	val, err := l.env.ExecuteActivity(l.a.Reimage, ReimageInput{
		Endpoint: l.ep, ImageURL: "http://images.lab/rackroll-" + version + ".iso", Version: version})
	var res ReimageResult
	if err == nil {
		require.NoError(l.t, val.Get(&res))
	}
	return res, err
}

func (l *labRig) power() PowerStatus {
	l.t.Helper()
	val, err := l.env.ExecuteActivity(l.a.ReadPower, l.ep)
	require.NoError(l.t, err)
	var st PowerStatus
	require.NoError(l.t, val.Get(&st))
	return st
}

func TestLabPowerCycle(t *testing.T) {
	l := newLab(t)
	assert.Equal(t, PowerStatus{PowerState: "On", Health: "OK"}, l.power())

	_, err := l.env.ExecuteActivity(l.a.PowerOff, PowerOffInput{Endpoint: l.ep})
	require.NoError(t, err)
	assert.Equal(t, "Off", l.bmc.State().Power)
	assert.Equal(t, "Off", l.power().PowerState)

	_, err = l.env.ExecuteActivity(l.a.PowerOn, l.ep)
	require.NoError(t, err)
	assert.Equal(t, "On", l.bmc.State().Power)
	_, err = l.env.ExecuteActivity(l.a.PowerOn, l.ep)
	require.NoError(t, err)
	assert.Equal(t, 1, l.count(events.PowerOn), "powering on a machine that is on does nothing")

	_, err = l.env.ExecuteActivity(l.a.Restart, l.ep)
	require.NoError(t, err)
	assert.Equal(t, 1, l.count(events.Reset))
	assert.Equal(t, "On", l.bmc.State().Power)
}

// settled waits for the lab's install to finish (the workflow waits for the
// node; these tests look at the emulator's model).
func (l *labRig) settled(version string) redfish.State {
	l.t.Helper()
	require.Eventually(l.t, func() bool {
		s := l.bmc.State()
		return s.OSRunning && s.RuntimeVersion == version
	}, 30*time.Second, time.Millisecond)
	return l.bmc.State()
}

func (l *labRig) eject(version string) error {
	_, err := l.env.ExecuteActivity(l.a.EjectMedia, EjectInput{Endpoint: l.ep, ImageURL: "http://images.lab/rackroll-" + version + ".iso"})
	return err
}

// The helpful profile answers the reset with a task monitor.
func TestLabReimageExactlyOnce(t *testing.T) {
	l := newLab(t, redfishtest.Helpful)
	res, err := l.reimage("4.2.0")
	require.NoError(t, err)
	assert.True(t, res.Reimaged)
	assert.NotEmpty(t, res.Task, "the lab answers the reset with a task monitor")
	assert.Empty(t, res.PreviousVersion, "the BMC is not asked")
	s := l.settled("4.2.0")
	assert.Equal(t, 1, s.ReimageCount)
	assert.Zero(t, l.count(events.MediaEject), "the installer stays in until the caller ejects it")

	require.NoError(t, l.eject("4.2.0"))
	assert.Equal(t, 1, l.count(events.MediaEject))
	require.NoError(t, l.eject("4.2.0"))
	assert.Equal(t, 1, l.count(events.MediaEject), "ejecting twice is a no-op")
}

func TestLabReimageRetriedAfterTheResetDoesNotResetAgain(t *testing.T) {
	l := newLab(t, func(c *redfish.Config) { c.Timings.Reimage = 200 * time.Millisecond })
	res, err := l.reimage("4.2.0")
	require.NoError(t, err)
	assert.NotEqual(t, "4.2.0", l.bmc.State().RuntimeVersion, "it returns while the install is still to come")

	// The worker died after the reset: the retry finds its heartbeat.
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(l.a)
	env.SetHeartbeatDetails(progress{Version: "4.2.0", Image: "http://images.lab/rackroll-4.2.0.iso", ResetIssued: true,
		Task: res.Task, LastState: res.LastState})
	val, err := env.ExecuteActivity(l.a.Reimage, ReimageInput{Endpoint: l.ep, ImageURL: "http://images.lab/rackroll-4.2.0.iso", Version: "4.2.0"})
	require.NoError(t, err)
	var again ReimageResult
	require.NoError(t, val.Get(&again))
	assert.Equal(t, res, again)
	assert.Equal(t, 1, l.settled("4.2.0").ReimageCount)
	assert.Equal(t, 1, l.count(events.ReimageStart))
	assert.Zero(t, l.count(events.MediaEject))
}

// Only a BMC whose reset task follows the install (helpful) can report the
// install's failure; on vendor profiles the node tells (workflows).
func TestLabReimageFailsIsSeenByTheWatch(t *testing.T) {
	l := newLab(t, redfishtest.Helpful)
	l.bmc.SetFault(faults.ReimageFails, 0)
	res, err := l.reimage("4.2.0")
	require.NoError(t, err, "starting the install succeeds; its failure is a hint the watch reports")
	_, err = l.env.ExecuteActivity(l.a.WatchReimage, WatchInput{Endpoint: l.ep, Task: res.Task})
	ae := appError(t, err, ErrTypeReimageFailed, false)
	assert.Contains(t, ae.Error(), "reports Exception")
	assert.Contains(t, ae.Error(), "last BMC state: PowerState On")
	s := l.bmc.State()
	assert.True(t, s.ReimageFailed)
	assert.Zero(t, s.ReimageCount)
}

func TestLabFlaky5xx(t *testing.T) {
	l := newLab(t)
	// About one request in three fails. A connect is several requests
	// (service root, session, an authenticated read); each is tried again
	// on its own (gofishclient/dial_busy.go), so newLab's 15 tries of a step suffice.
	l.bmc.SetFault(faults.BMC5xx, 0.3)
	_, err := l.env.ExecuteActivity(l.a.PowerOff, PowerOffInput{Endpoint: l.ep, SkipShutdown: true})
	require.NoError(t, err)
	_, err = l.env.ExecuteActivity(l.a.PowerOn, l.ep)
	require.NoError(t, err)
	_, err = l.reimage("4.2.0")
	require.NoError(t, err)
	assert.Equal(t, 1, l.settled("4.2.0").ReimageCount)
	assert.Equal(t, 1, l.count(events.ReimageStart))
	require.NoError(t, l.eject("4.2.0"))
}

func TestLabStaleETag(t *testing.T) {
	l := newLab(t)
	l.bmc.SetFault(faults.StaleETag, 0.5)
	_, err := l.reimage("4.2.0")
	require.NoError(t, err)
	assert.Equal(t, 1, l.settled("4.2.0").ReimageCount)

	l.bmc.SetFault(faults.StaleETag, 1)
	l.a.ETagAttempts = 3
	_, err = l.reimage("4.3.0")
	appError(t, err, ErrTypeConflict, true)
	assert.Equal(t, "4.2.0", l.bmc.State().RuntimeVersion, "no reset without the boot override")
}

func TestLabVirtualMediaUnderManagerOnly(t *testing.T) {
	l := newLab(t, func(c *redfish.Config) { c.ManagerVirtualMediaOnly = true })
	res, err := l.reimage("4.2.0")
	require.NoError(t, err)
	assert.True(t, res.Reimaged)
	assert.Equal(t, 1, l.settled("4.2.0").ReimageCount)
}

func TestLabReimageFromOff(t *testing.T) {
	l := newLab(t)
	_, err := l.env.ExecuteActivity(l.a.PowerOff, PowerOffInput{Endpoint: l.ep, SkipShutdown: true})
	require.NoError(t, err)
	_, err = l.reimage("4.2.0")
	require.NoError(t, err)
	l.settled("4.2.0")
	require.NoError(t, l.eject("4.2.0"))
	assert.Equal(t, redfish.State{Power: "On", OSRunning: true, RuntimeVersion: "4.2.0", ReimageCount: 1}, l.bmc.State())
}

func TestLabPowerOnFails(t *testing.T) {
	l := newLab(t)
	_, err := l.env.ExecuteActivity(l.a.PowerOff, PowerOffInput{Endpoint: l.ep})
	require.NoError(t, err)
	l.bmc.SetFault(faults.PowerOnFails, 0)
	// iDRAC answers 204 and the machine stays Off: only the limit ends it.
	l.a.ResetEvidenceTimeout, l.a.PowerOnTimeout = 50*time.Millisecond, 200*time.Millisecond
	_, err = l.env.ExecuteActivity(l.a.PowerOn, l.ep)
	ae := appError(t, err, ErrTypePowerFailed, false)
	assert.Contains(t, ae.Error(), "still Off")
	assert.Equal(t, "Off", l.bmc.State().Power)
}

// A restart whose machine goes down and never comes back fails at the
// power-on limit rather than waiting for the activity's own timeout.
func TestLabRestartLeavesMachineOff(t *testing.T) {
	l := newLab(t)
	l.bmc.SetFault(faults.PowerOnFails, 0)
	l.a.ResetEvidenceTimeout, l.a.PowerOnTimeout = 50*time.Millisecond, 200*time.Millisecond
	_, err := l.env.ExecuteActivity(l.a.Restart, l.ep)
	ae := appError(t, err, ErrTypePowerFailed, false)
	assert.Contains(t, ae.Error(), "restart but the machine is still Off")
	assert.Equal(t, "Off", l.bmc.State().Power)
}

func TestLabUnreachableAndTimeout(t *testing.T) {
	l := newLab(t)
	l.a.Attempts = 2
	l.bmc.SetFault(faults.BMCUnreachable, 0)
	_, err := l.env.ExecuteActivity(l.a.ReadPower, l.ep)
	appError(t, err, ErrTypeUnavailable, true)
	l.bmc.ClearFault(faults.BMCUnreachable)

	l.bmc.SetFault(faults.BMCTimeout, 1)
	l.a.RequestTimeout = 50 * time.Millisecond
	_, err = l.env.ExecuteActivity(l.a.ReadPower, l.ep)
	appError(t, err, ErrTypeUnavailable, true)
}

func TestLabWrongPassword(t *testing.T) {
	l := newLab(t)
	t.Setenv("RR_TEST_BMC_PASS", "wrong")
	_, err := l.env.ExecuteActivity(l.a.ReadPower, l.ep)
	appError(t, err, ErrTypeAuth, false)
}

func TestLabTLSIsVerifiedUnlessSkipped(t *testing.T) {
	l := newLab(t)
	srv := httptest.NewTLSServer(l.bmc.Handler()) // self-signed
	t.Cleanup(srv.Close)
	l.ep.Address = srv.URL

	_, err := l.env.ExecuteActivity(l.a.ReadPower, l.ep)
	ae := appError(t, err, ErrTypeConfig, false)
	assert.Contains(t, ae.Error(), "set caFile")

	l.ep.InsecureSkipVerify = true
	assert.Equal(t, "On", l.power().PowerState)
}
