package server

import (
	"slices"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

// atTarget puts the compute server on the target already, with firmware
// bios/idrac: a re-run of the upgrade finds it so.
func atTarget(bios, idrac string) func(*wftest.FakeSite, *testsuite.TestWorkflowEnvironment) {
	return func(f *wftest.FakeSite, _ *testsuite.TestWorkflowEnvironment) {
		f.St.Firmware = map[string]firmware.Baseline{"4.2.0": wftest.DellBaseline()}
		f.FirmwareOf(wftest.Compute, wftest.Dell(bios, idrac))
		f.Bmm(wftest.Compute).RuntimeVersion = "4.2.0"
		f.Nodes[wftest.Compute].Version = "4.2.0"
	}
}

// A server on the target but below its baseline (repaired with an older
// part, or upgraded before the baseline) gets the firmware in a window of
// its own when the upgrade runs again: drained once, the firmware, its
// node back on a new boot at the target, uncordoned; never reimaged.
func TestServerAtTargetBelowBaselineGetsFirmwareOnly(t *testing.T) {
	f, res, _ := upgradeOne(t, atTarget("1.10.0", "7.00.30.00"))
	require.True(t, res.Succeeded, res.Error)
	assert.False(t, res.AlreadyAtTarget, "it was worked on")
	assert.Equal(t, []string{"BIOS 1.10.0 → 1.13.2"}, res.Firmware)
	assert.Empty(t, f.Reimages, "its OS is already the target's")
	log := f.CallLog()
	node := f.Bmm(wftest.Compute).NodeName
	assert.Equal(t, 1, wftest.Count(log, "Drain "+node))
	drain, fw, wait, uncordon := slices.Index(log, "Drain "+node), slices.Index(log, "ApplyFirmware "+wftest.Compute+" BIOS"),
		slices.Index(log, "WaitNodeReady "+node), slices.Index(log, "Uncordon "+node)
	require.True(t, drain >= 0 && fw > drain && wait > fw && uncordon > wait, "drain %d, firmware %d, wait %d, uncordon %d", drain, fw, wait, uncordon)
	require.Len(t, f.Waits, 1)
	assert.Equal(t, wftest.BootID(wftest.Compute, 0), f.Waits[0].PreviousBootID, "back means a boot after the firmware's")
	assert.Equal(t, "4.2.0", f.Waits[0].Version)
	bm := f.LedgerBMM(wftest.Compute)
	assert.Equal(t, model.BMMProvisioned, bm.DetailedStatus)
	assert.Equal(t, model.Uncordoned, bm.CordonStatus)
	assert.Empty(t, firmware.Judge(wftest.DellBaseline(), f.FirmwareNow(wftest.Compute)).Below())
}

// Only the BMC below: its update starts no host, so there is no boot to
// wait for; the node is given back at once, and the BMC keysets' runs
// check that BMC's accounts again.
func TestServerAtTargetBMCOnlyWaitsForNoBoot(t *testing.T) {
	f, res, _ := upgradeOne(t, atTarget("1.13.2", "6.10.00.00"))
	require.True(t, res.Succeeded, res.Error)
	assert.Equal(t, []string{"iDRAC 6.10.00.00 → 7.00.30.00"}, res.Firmware)
	assert.Empty(t, f.Waits)
	assert.Empty(t, f.Reimages)
	assert.Equal(t, model.Uncordoned, f.LedgerBMM(wftest.Compute).CordonStatus)
	require.Len(t, f.Rechecked, 1)
	assert.Equal(t, wftest.Compute, f.Rechecked[0].BMM)
}

// At the target and at the baseline: read, not touched, skipped as before.
func TestServerAtTargetAndBaselineIsNotTouched(t *testing.T) {
	f, res, _ := upgradeOne(t, atTarget("1.13.2", "7.00.30.00"))
	require.True(t, res.Succeeded, res.Error)
	assert.True(t, res.AlreadyAtTarget)
	log := f.CallLog()
	assert.Equal(t, 1, wftest.Count(log, "ReadFirmware "+wftest.Compute))
	assert.Zero(t, wftest.Count(log, "Cordon "+f.Bmm(wftest.Compute).NodeName))
	assert.Empty(t, f.FirmwareInputs)
}

// A failed update fails the server like the upgrade's firmware step: it
// stays cordoned, recorded Error, for the threshold to count.
func TestServerAtTargetFirmwareFailureFailsTheServer(t *testing.T) {
	f, res, _ := upgradeOne(t, func(f *wftest.FakeSite, env *testsuite.TestWorkflowEnvironment) {
		atTarget("1.10.0", "7.00.30.00")(f, env)
		f.FirmwareFails[wftest.Compute] = "the update task ended Exception"
	})
	require.False(t, res.Succeeded)
	assert.Equal(t, "firmware", res.Step)
	assert.Contains(t, res.Error, "BIOS: the update task ended Exception")
	assert.True(t, f.Cordoned[wftest.Compute])
	assert.Equal(t, model.BMMError, f.LedgerBMM(wftest.Compute).DetailedStatus)
}

// The plan's reach: the firmware step runs on a server at the target only
// when the upgrade still runs it (not a control-plane member).
func TestAtTargetKCPIsLeftToReplace(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	f.St.Firmware = map[string]firmware.Baseline{"4.2.0": wftest.DellBaseline()}
	var kcp string
	for i, b := range f.St.Cluster.BMMs {
		if b.HasRole(model.RoleKCP) {
			kcp = b.Name
			f.St.Cluster.BMMs[i].RuntimeVersion = "4.2.0"
			f.Nodes[b.Name].Version = "4.2.0"
			f.FirmwareOf(b.Name, wftest.Dell("1.10.0", "7.00.30.00"))
			break
		}
	}
	env.ExecuteWorkflow(ServerUpgradeWorkflow, api.ServerInput{Cluster: "site-a", BMM: kcp, TargetVersion: "4.2.0", ImageURL: "http://images/rackroll-4.2.0.iso"})
	require.NoError(t, env.GetWorkflowError())
	var res api.ServerResult
	require.NoError(t, env.GetWorkflowResult(&res))
	assert.True(t, res.AlreadyAtTarget)
	assert.Empty(t, f.FirmwareInputs)
}

// A staged BIOS (OnReset) is installed by the one host start
// FinishStagedFirmware makes: the window still waits for the node back on
// a new boot, as after any host start.
func TestServerAtTargetStagedFirmwareWaitsForTheBoot(t *testing.T) {
	f, res, _ := upgradeOne(t, func(f *wftest.FakeSite, env *testsuite.TestWorkflowEnvironment) {
		atTarget("1.10.0", "6.10.00.00")(f, env)
		f.St.Firmware["4.2.0"][0].Components[1].Apply.ApplyTime = firmware.ApplyOnReset
	})
	require.True(t, res.Succeeded, res.Error)
	assert.Equal(t, []string{"BIOS 1.10.0 → 1.13.2 (staged, one host start)", "iDRAC 6.10.00.00 → 7.00.30.00"}, res.Firmware)
	log := f.CallLog()
	finish, idrac := slices.Index(log, "FinishStagedFirmware "+wftest.Compute+" BIOS"), slices.Index(log, "ApplyFirmware "+wftest.Compute+" iDRAC")
	require.True(t, finish >= 0 && idrac > finish, "the staged BIOS finished before the BMC's update: %v", log)
	assert.Equal(t, 1, f.FirmwareHostStarts[wftest.Compute])
	require.Len(t, f.Waits, 1, "the host start is a boot to wait for")
	assert.Equal(t, wftest.BootID(wftest.Compute, 0), f.Waits[0].PreviousBootID)
}
