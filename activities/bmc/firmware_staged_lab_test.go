package bmc

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

// nicComponent matches the NIC as iDRAC (NIC.Integrated…) and iLO
// (HPE Ethernet … Adptr) name it.
func nicComponent(minimum, image string, apply firmware.Apply) firmware.Component {
	return firmware.Component{Name: "the nic", Kind: firmware.KindNIC, Inventory: "NIC|Ethernet", Minimum: minimum, Image: image, Apply: apply}
}

// applyLeavingStaged is ApplyFirmware as the kernel calls it for host
// firmware behind its one-reset change.
func (l *labRig) applyLeavingStaged(c firmware.Component) ApplyFirmwareResult {
	l.t.Helper()
	val, err := l.newEnv().ExecuteActivity(l.a.ApplyFirmware, ApplyFirmwareInput{Endpoint: l.ep, Component: c,
		TaskLimit: 2 * time.Second, AwayLimit: 2 * time.Second, LeaveStaged: true})
	require.NoError(l.t, err)
	var res ApplyFirmwareResult
	require.NoError(l.t, val.Get(&res))
	return res
}

func (l *labRig) finish(ep Endpoint, staged []StagedFirmware, env *testsuite.TestActivityEnvironment) (FinishStagedFirmwareResult, error) {
	l.t.Helper()
	val, err := env.ExecuteActivity(l.a.FinishStagedFirmware, FinishStagedFirmwareInput{Endpoint: ep, Staged: staged, TaskLimit: 2 * time.Second})
	var res FinishStagedFirmwareResult
	if err == nil {
		require.NoError(l.t, val.Get(&res))
	}
	return res, err
}

// hostStarts are the host resets and power-ons the lab saw.
func (l *labRig) hostStarts() int { return l.count(events.Reset) + l.count(events.PowerOn) }

// stageAll applies each component leaving it staged, and checks it was.
func (l *labRig) stageAll(comps ...firmware.Component) []StagedFirmware {
	l.t.Helper()
	var staged []StagedFirmware
	for _, c := range comps {
		res := l.applyLeavingStaged(c)
		require.True(l.t, res.Staged, "%s: %+v", c.Name, res)
		assert.True(l.t, res.Applied)
		assert.False(l.t, res.HostStarted)
		assert.Empty(l.t, res.To, "not proven yet")
		staged = append(staged, StagedFirmware{Component: c, From: res.From, Task: res.Task})
	}
	assert.Zero(l.t, l.hostStarts(), "nothing reset while staging")
	return staged
}

// The staged components of a server — iDRAC's jobs (Pending for the next
// reset), iLO's OnReset, Supermicro X12's Scheduled BIOS — are installed
// by one host start, each proven by its source, one update request each.
func TestLabStagedFirmwareSharesOneHostStart(t *testing.T) {
	pkgs := packageServer(t)
	onReset := firmware.Apply{Method: firmware.MethodSimpleUpdate, ApplyTime: firmware.ApplyOnReset}
	for _, c := range []struct {
		profile string
		comps   []firmware.Component
		to      []string
	}{
		{"idrac9", []firmware.Component{component("bios", "1.14.0", "http://fw.example/bios-1.14.0.exe", onReset),
			nicComponent("22.32.0", "http://fw.example/nic-22.32.0.exe", onReset)}, []string{"1.14.0", "22.32.0"}},
		{"ilo5", []firmware.Component{component("bios", "U46 v2.90", "http://fw.example/bios-2.90.fwpkg", onReset),
			nicComponent("20.15.0", "http://fw.example/nic-20.15.0.fwpkg", onReset)}, []string{"U46 v2.90 (08/11/2022)", "20.15.0"}},
		{"supermicro-x12", []firmware.Component{component("bios", "2.1", pkgs+"/fw/bios-2.1.bin", firmware.Apply{Method: firmware.MethodMultipartPush})}, []string{"2.1"}},
	} {
		t.Run(c.profile, func(t *testing.T) {
			l := newLab(t, redfishtest.Profile(c.profile))
			staged := l.stageAll(c.comps...)
			res, err := l.finish(l.ep, staged, l.newEnv())
			require.NoError(t, err)
			assert.True(t, res.HostStarted)
			assert.Equal(t, 1, l.hostStarts(), "one host start for all")
			require.Len(t, res.Results, len(c.comps))
			for i, r := range res.Results {
				assert.Equal(t, c.comps[i].Name, r.Component)
				assert.Equal(t, c.to[i], r.To, "proven by its source")
				assert.True(t, r.Staged && r.HostStarted && r.Applied)
				assert.Contains(t, r.Detail, "installed at one host start for")
			}
			assert.Equal(t, len(c.comps), l.bmc.State().UpdateRequests, "one request per component")
			assert.Equal(t, "On", l.bmc.State().Power)
			for _, comp := range c.comps {
				again, err := l.apply(comp, l.newEnv())
				require.NoError(t, err)
				assert.False(t, again.Applied, "%s at its baseline", comp.Name)
			}
		})
	}
}

// What installs at once (iLO's System ROM: Completed, read at the next
// start; the BMC's own firmware) is proven by ApplyFirmware as before,
// with LeaveStaged too.
func TestLabLeaveStagedProvesWhatInstallsAtOnce(t *testing.T) {
	l := newLab(t, redfishtest.Profile("ilo5"))
	simple := firmware.Apply{Method: firmware.MethodSimpleUpdate}
	bios := l.applyLeavingStaged(component("bios", "U46 v2.90", "http://fw.example/bios-2.90.fwpkg", simple))
	assert.False(t, bios.Staged)
	assert.True(t, bios.HostStarted)
	assert.Equal(t, "U46 v2.90 (08/11/2022)", bios.To)
	own := l.applyLeavingStaged(component("bmc", "2.90", "http://fw.example/bmc-2.90.fwpkg", simple))
	assert.False(t, own.Staged)
	assert.Equal(t, "iLO 5 v2.90", own.To)
}

// A staged component a host start before (another component's) is
// installing, or installed, is waited for and proven without a second
// reset: none cuts an install at POST short.
func TestLabStagedFirmwareStartedEarlierIsNotResetAgain(t *testing.T) {
	l := newLab(t, redfishtest.Profile("idrac9"))
	onReset := firmware.Apply{Method: firmware.MethodSimpleUpdate, ApplyTime: firmware.ApplyOnReset}
	staged := l.stageAll(component("bios", "1.14.0", "http://fw.example/bios-1.14.0.exe", onReset))
	_, err := l.newEnv().ExecuteActivity(l.a.Restart, l.ep)
	require.NoError(t, err)
	res, err := l.finish(l.ep, staged, l.newEnv())
	require.NoError(t, err)
	assert.False(t, res.HostStarted)
	assert.Equal(t, 1, l.hostStarts(), "the earlier restart only")
	assert.Equal(t, "1.14.0", res.Results[0].To)
}

// A staged install that fails at POST, or never shows, fails the finish
// typed, naming the component, within the limit.
func TestLabStagedFirmwareFaults(t *testing.T) {
	onReset := firmware.Apply{Method: firmware.MethodSimpleUpdate, ApplyTime: firmware.ApplyOnReset}
	for _, c := range []struct {
		fault faults.Kind
		typ   string
		says  string
	}{
		{faults.FirmwareException, ErrTypeFirmwareException, "the bios: the update task ended Exception"},
		{faults.FirmwareUnchanged, ErrTypeFirmwareUnchanged, "the bios still shows 1.13.2 (the baseline requires 1.14.0), the nic still shows 22.31.6 (the baseline requires 22.32.0) 1s after the update and one host start for the bios, the nic"},
	} {
		t.Run(string(c.fault), func(t *testing.T) {
			l := newLab(t, redfishtest.Profile("idrac9"))
			staged := l.stageAll(component("bios", "1.14.0", "http://fw.example/bios-1.14.0.exe", onReset),
				nicComponent("22.32.0", "http://fw.example/nic-22.32.0.exe", onReset))
			l.bmc.SetFault(c.fault, 0)
			start := time.Now()
			_, err := l.newEnv().ExecuteActivity(l.a.FinishStagedFirmware, FinishStagedFirmwareInput{Endpoint: l.ep, Staged: staged, TaskLimit: time.Second})
			ae := appError(t, err, c.typ, false)
			assert.Contains(t, ae.Error(), c.says)
			assert.Less(t, time.Since(start), 5*time.Second, "bounded by the limit")
			assert.Equal(t, 1, l.hostStarts())
		})
	}
}

// A worker killed with the finishing host start's reset in flight is
// resumed from the record the server holds: no second reset, and both
// components are proven.
func TestLabKilledDuringTheStagedHostStartDoesNotResetTwice(t *testing.T) {
	l := newLab(t, redfishtest.Profile("idrac9"))
	onReset := firmware.Apply{Method: firmware.MethodSimpleUpdate, ApplyTime: firmware.ApplyOnReset}
	staged := l.stageAll(component("bios", "1.14.0", "http://fw.example/bios-1.14.0.exe", onReset),
		nicComponent("22.32.0", "http://fw.example/nic-22.32.0.exe", onReset))
	l.a.Attempts = 2
	var p crashingProxy // dies at the reset
	dying := l.ep
	dying.Address = p.start(t, l.ep.Address)
	l.a.Heartbeats = serverOf{&p}
	_, err := l.finish(dying, staged, l.env)
	require.Error(t, err, "the first attempt's worker died")
	require.NotNil(t, p.atReset, "the reset went out")
	assert.True(t, p.atReset.FwHostStarted && p.atReset.ResetIssued, "recorded before the reset: %+v", *p.atReset)
	assert.Equal(t, 1, l.hostStarts())

	retry := l.newEnv()
	retry.SetHeartbeatDetails(*p.atReset)
	res, err := l.finish(l.ep, staged, retry)
	require.NoError(t, err)
	assert.Equal(t, 1, l.hostStarts(), "the retry sent no second reset")
	require.Len(t, res.Results, 2)
	assert.Equal(t, "1.14.0", res.Results[0].To)
	assert.Equal(t, "22.32.0", res.Results[1].To)
	assert.Equal(t, 2, l.bmc.State().UpdateRequests)
}
