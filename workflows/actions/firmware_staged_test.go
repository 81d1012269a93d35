package actions

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/rackroll/rackroll/workflows/kernel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// stagedSite is fwSite with its BIOS and NIC applied OnReset (staged by
// the BMC until a host reset), the NIC below its minimum too.
func stagedSite(t *testing.T) *wftest.FakeSite {
	s := fwSite(t)
	comps := s.St.Firmware["4.1.2"][0].Components
	comps[1].Apply.ApplyTime = firmware.ApplyOnReset
	comps[2].Apply.ApplyTime, comps[2].Minimum = firmware.ApplyOnReset, "22.32.0"
	return s
}

var beforeReinstall = []string{"ReadFirmware rack1-c1", "Cordon rack1-c1", "Drain rack1-c1", "ShutdownVMs rack1-c1"}

// Two staged host components get one host start between them, each
// proven after it, and the BMC's own update comes after that, last.
func TestReplaceStagedFirmwareSharesOneHostStart(t *testing.T) {
	s := stagedSite(t)
	res, err := startAs(t, s, 1, replaceIn(true), nil)
	require.NoError(t, err)
	assert.Equal(t, append(beforeReinstall, "ApplyFirmware rack1-c1 BIOS", "ApplyFirmware rack1-c1 NIC",
		"FinishStagedFirmware rack1-c1 BIOS, NIC", "ApplyFirmware rack1-c1 iDRAC",
		"Reimage rack1-c1", "WaitNodeReady rack1-c1", "EjectMedia rack1-c1", "Uncordon rack1-c1"), s.CallLog())
	assert.Equal(t, 1, s.FirmwareHostStarts[wftest.Compute], "one host start for both")
	assert.Equal(t, []string{"BIOS 1.10.0 → 1.13.2 (staged, one host start)", "NIC 22.31.6 → 22.32.0 (staged, one host start)",
		"iDRAC 6.10.00.00 → 7.00.30.00"}, res.Firmware)
	require.Len(t, s.FirmwareInputs, 3)
	assert.True(t, s.FirmwareInputs[0].LeaveStaged && s.FirmwareInputs[1].LeaveStaged, "host firmware may stay staged")
	assert.False(t, s.FirmwareInputs[2].LeaveStaged, "the BMC's own")
	require.Len(t, s.StagedInputs, 1)
	st := s.StagedInputs[0]
	require.Len(t, st.Staged, 2)
	assert.Equal(t, "1.10.0", st.Staged[0].From)
	assert.Equal(t, "/redfish/v1/TaskService/Tasks/NIC", st.Staged[1].Task, "each install's task is watched")
	assert.Positive(t, st.TaskLimit)
	rep := firmware.Judge(s.St.Firmware["4.1.2"], s.FirmwareNow(wftest.Compute))
	assert.Empty(t, rep.Below(), "each proven at the baseline")
}

// A run from before the change (its history has no marker) applies each
// component alone, each staged one with its own host start: recorded
// histories replay.
func TestStagedFirmwareBeforeTheChangeRestartsPerComponent(t *testing.T) {
	s := stagedSite(t)
	res, err := startAs(t, s, 1, replaceIn(true), func(env *testsuite.TestWorkflowEnvironment) {
		env.OnGetVersion(kernel.ChangeFirmwareOneReset, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	})
	require.NoError(t, err)
	assert.Equal(t, append(beforeReinstall, "ApplyFirmware rack1-c1 BIOS", "ApplyFirmware rack1-c1 NIC", "ApplyFirmware rack1-c1 iDRAC",
		"Reimage rack1-c1", "WaitNodeReady rack1-c1", "EjectMedia rack1-c1", "Uncordon rack1-c1"), s.CallLog())
	assert.Equal(t, 2, s.FirmwareHostStarts[wftest.Compute])
	assert.Equal(t, []string{"BIOS 1.10.0 → 1.13.2", "NIC 22.31.6 → 22.32.0", "iDRAC 6.10.00.00 → 7.00.30.00"}, res.Firmware)
	for _, in := range s.FirmwareInputs {
		assert.False(t, in.LeaveStaged)
	}
	assert.Empty(t, s.StagedInputs)
}

// A staged install that fails at the host start fails the replace naming
// the component, before the BMC's update and the reinstall.
func TestStagedFirmwareFailureNamesTheComponent(t *testing.T) {
	s := stagedSite(t)
	s.FirmwareFails[wftest.Compute] = "the update task ended Exception"
	_, err := startAs(t, s, 1, replaceIn(true), nil)
	requireAppErrorType(t, err, api.ErrActionFailed)
	assert.ErrorContains(t, err, "replace of rack1-c1 failed: firmware: BIOS: the update task ended Exception")
	assert.Equal(t, 1, wftest.Count(s.CallLog(), "FinishStagedFirmware rack1-c1 BIOS, NIC"))
	assert.NotContains(t, s.CallLog(), "ApplyFirmware rack1-c1 iDRAC")
	assert.Empty(t, s.Reimages)
}
