package server

import (
	"testing"

	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

// A component that cannot be judged is named in the server's result,
// never applied, and does not hold the server back; what is below is
// applied and reported.
func TestUpgradeNamesUnknownFirmwareAndAppliesTheRest(t *testing.T) {
	f, res, _ := upgradeOne(t, func(f *wftest.FakeSite, _ *testsuite.TestWorkflowEnvironment) {
		f.St.Firmware = map[string]firmware.Baseline{"4.2.0": wftest.DellBaseline()}
		f.FirmwareOf(wftest.Compute, firmware.Server{Manufacturer: "Dell Inc.", Model: "PowerEdge R650", Items: []firmware.Item{
			{ID: "BIOS", Name: "BIOS", Version: "1.10.0"}}}) // no iDRAC member
	})
	require.True(t, res.Succeeded, res.Error)
	assert.Equal(t, "4.2.0", res.RuntimeVersion)
	require.Len(t, f.FirmwareInputs, 1)
	assert.Equal(t, "BIOS", f.FirmwareInputs[0].Component.Name)
	assert.Equal(t, []string{"BIOS 1.10.0 → 1.13.2", `iDRAC not judged: no FirmwareInventory member matches "Remote Access Controller"`}, res.Firmware)
	assert.Empty(t, f.Rechecked, "the BMC's firmware was not updated: its accounts stand")
}

// Once the BMC's own firmware is updated (iDRAC), the BMC keysets' runs
// are asked to check that BMC's accounts again: some vendors' updates
// reset them.
func TestUpgradeRechecksAccountsAfterTheBMCFirmware(t *testing.T) {
	f, res, _ := upgradeOne(t, func(f *wftest.FakeSite, _ *testsuite.TestWorkflowEnvironment) {
		f.St.Firmware = map[string]firmware.Baseline{"4.2.0": wftest.DellBaseline()}
		f.FirmwareOf(wftest.Compute, wftest.Dell("1.10.0", "6.10.00.00"))
	})
	require.True(t, res.Succeeded, res.Error)
	assert.Equal(t, []string{"BIOS 1.10.0 → 1.13.2", "iDRAC 6.10.00.00 → 7.00.30.00"}, res.Firmware)
	require.Len(t, f.Rechecked, 1)
	assert.Equal(t, wftest.Compute, f.Rechecked[0].BMM)
	assert.Contains(t, f.Rechecked[0].Why, "BMC firmware")
}

// A staged install that fails at the one host start fails the server at
// step firmware; its result says the BIOS update is staged, not proven — what
// the next reset of that server would install — and the BMC's update was
// not sent.
func TestUpgradeStagedFirmwareFailureSaysWhatIsStaged(t *testing.T) {
	f, res, _ := upgradeOne(t, func(f *wftest.FakeSite, _ *testsuite.TestWorkflowEnvironment) {
		b := wftest.DellBaseline()
		b[0].Components[1].Apply.ApplyTime = firmware.ApplyOnReset
		f.St.Firmware = map[string]firmware.Baseline{"4.2.0": b}
		f.FirmwareOf(wftest.Compute, wftest.Dell("1.10.0", "6.10.00.00"))
		f.FirmwareFails[wftest.Compute] = "the update task ended Exception"
	})
	require.False(t, res.Succeeded)
	assert.Equal(t, "firmware", res.Step)
	assert.Contains(t, res.Error, "BIOS: the update task ended Exception")
	assert.Equal(t, []string{"BIOS 1.10.0: update staged, not proven (a host reset may still install it)"}, res.Firmware)
	assert.Equal(t, 0, wftest.Count(f.CallLog(), "ApplyFirmware "+wftest.Compute+" iDRAC"))
	assert.Empty(t, f.Reimages)
	assert.Empty(t, f.Rechecked, "the BMC's update was never sent")
}
