package actions

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fwSite is the action site with a baseline for its runtime (4.1.2) and
// rack1-c1's BMC below it on BIOS and iDRAC (declared iDRAC first, to
// show the BMC goes last), its NIC at baseline.
func fwSite(t *testing.T) *wftest.FakeSite {
	s := wftest.NewActionSite(t)
	simple := firmware.Apply{Method: firmware.MethodSimpleUpdate}
	s.St.Firmware = map[string]firmware.Baseline{"4.1.2": {{Match: firmware.Match{Manufacturer: "Dell Inc."}, Components: []firmware.Component{
		{Name: "iDRAC", Kind: firmware.KindBMC, Inventory: "Remote Access Controller", Minimum: "7.00.30.00", Image: "http://fw.example/idrac.exe", Apply: simple},
		{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "1.13.2", Image: "http://fw.example/bios.exe", Apply: simple},
		{Name: "NIC", Kind: "nic", Inventory: "^NIC", Minimum: "22.31.6", Image: "http://fw.example/nic.exe", Apply: simple},
	}}}}
	s.FirmwareOf(wftest.Compute, firmware.Server{Manufacturer: "Dell Inc.", Model: "PowerEdge R650", Items: []firmware.Item{
		{ID: "Installed-159-1.10.0__BIOS.Setup.1-1", Name: "BIOS", Version: "1.10.0"},
		{ID: "Installed-25227-6.10.00.00", Name: "Integrated Dell Remote Access Controller", Version: "6.10.00.00"},
		{ID: "Installed-NIC.Integrated.1-1", Name: "NIC", Version: "22.31.6"},
	}})
	return s
}

func replaceIn(apply bool) api.ActionInput {
	in := api.ActionInput{Cluster: "site-a", BMM: wftest.Compute, Action: api.ActionReplace, ReplaceParams: api.ReplaceParams{SafeguardMode: api.SafeguardNone}}
	in.ApplyFirmware = apply
	return in
}

// Below the baseline, a replace is refused before any side effect (the
// read only, no lease), naming server, component, current and required.
func TestReplaceBelowFirmwareBaselineIsRefused(t *testing.T) {
	s := fwSite(t)
	// The starter takes the run's lease before it starts it.
	s.HoldLease(t, wftest.Compute, api.ActionID("site-a", wftest.Compute, 1), api.ActionReplace)
	_, err := s.RunAction(t, replaceIn(false))
	require.Error(t, err)
	requireAppErrorType(t, err, api.ErrPrecheck)
	for _, want := range []string{"bmm rack1-c1's firmware is not at the baseline of runtime 4.1.2",
		"BIOS (Installed-159-1.10.0__BIOS.Setup.1-1) 1.10.0, requires 1.13.2", "iDRAC (Installed-25227-6.10.00.00) 6.10.00.00, requires 7.00.30.00",
		"--apply-firmware"} {
		assert.ErrorContains(t, err, want)
	}
	assert.NotContains(t, err.Error(), "NIC", "the NIC is at its baseline")
	assert.Equal(t, []string{"ReadFirmware rack1-c1"}, s.CallLog(), "read only")
	assert.Empty(t, s.Leases(), "the starter's lease for the refused run is given back at once")
	assert.Equal(t, model.BMMProvisioned, s.LedgerBMM(wftest.Compute).DetailedStatus, "nothing recorded")
}

// With applyFirmware the baseline is applied inside the replace's
// disruption — after the evacuation, before the reinstall — host
// firmware first and the BMC last, each bounded by the firmware limit,
// and the inventory ends at the baseline.
func TestReplaceAppliesFirmwareFirst(t *testing.T) {
	s := fwSite(t)
	res, err := s.RunAction(t, replaceIn(true))
	require.NoError(t, err)
	assert.Equal(t, []string{"ReadFirmware rack1-c1", "Cordon rack1-c1", "Drain rack1-c1", "ShutdownVMs rack1-c1",
		"ApplyFirmware rack1-c1 BIOS", "ApplyFirmware rack1-c1 iDRAC",
		"Reimage rack1-c1", "WaitNodeReady rack1-c1", "EjectMedia rack1-c1", "Uncordon rack1-c1"}, s.CallLog())
	assert.Equal(t, []string{"BIOS 1.10.0 → 1.13.2", "iDRAC 6.10.00.00 → 7.00.30.00"}, res.Firmware)
	assert.Contains(t, res.Message, "firmware BIOS 1.10.0 → 1.13.2, iDRAC 6.10.00.00 → 7.00.30.00")
	rep := firmware.Judge(s.St.Firmware["4.1.2"], s.FirmwareNow(wftest.Compute))
	assert.Empty(t, rep.Below(), "the inventory shows the baseline")
	assert.Empty(t, rep.Unknown())
	for _, in := range s.FirmwareInputs {
		assert.LessOrEqual(t, in.TaskLimit, 30*time.Minute)
		assert.Less(t, in.TaskLimit, time.Hour, "within the firmware row")
	}
	assert.Equal(t, model.BMMProvisioned, s.LedgerBMM(wftest.Compute).DetailedStatus)
	assert.Empty(t, s.Leases())
}

// A server at the baseline is read and replaced as before; a runtime
// without a baseline is not read at all.
func TestReplaceAtBaselineOrWithoutOne(t *testing.T) {
	s := fwSite(t)
	s.FirmwareOf(wftest.Compute, firmware.Server{Manufacturer: "Dell Inc.", Model: "PowerEdge R650", Items: []firmware.Item{
		{ID: "BIOS", Name: "BIOS", Version: "1.13.2"}, {ID: "iDRAC", Name: "Integrated Dell Remote Access Controller", Version: "7.00.30.00"},
		{ID: "NIC.1", Name: "NIC", Version: "22.31.6"}}})
	_, err := s.RunAction(t, replaceIn(false))
	require.NoError(t, err)
	assert.Equal(t, "ReadFirmware rack1-c1", s.CallLog()[0])
	assert.NotContains(t, s.CallLog(), "ApplyFirmware rack1-c1 BIOS")
	assert.Empty(t, s.FirmwareInputs)

	other := fwSite(t)
	other.St.Firmware = map[string]firmware.Baseline{"4.2.0": other.St.Firmware["4.1.2"]}
	_, err = other.RunAction(t, replaceIn(false))
	require.NoError(t, err, "4.1.2 declares no baseline: nothing is checked")
	assert.NotContains(t, other.CallLog(), "ReadFirmware rack1-c1")
}

// --force with a reason skips the check, reads nothing, and leaves a
// trace: the ledger's break-glass act and the action's message say so.
func TestForcedReplaceSkipsTheFirmwareCheck(t *testing.T) {
	s := fwSite(t)
	res, err := s.RunAction(t, forced(replaceIn(false), "INC-9: board swap, firmware next window"))
	require.NoError(t, err)
	assert.NotContains(t, s.CallLog(), "ReadFirmware rack1-c1")
	assert.Empty(t, s.FirmwareInputs)
	assert.Contains(t, res.Message, "firmware check against the baseline of runtime 4.1.2 skipped (--force: INC-9: board swap, firmware next window)")
	require.Len(t, s.St.BreakGlass, 1)
	act := s.St.BreakGlass[0]
	assert.Equal(t, api.ActForce, act.Act)
	assert.Equal(t, "alice", act.By)
	assert.Contains(t, act.Detail, "the firmware check against the baseline of runtime 4.1.2 is skipped")
}

// A firmware update that fails fails the replace before the reinstall,
// naming the component; a BMC that cannot be read refuses the replace.
func TestReplaceFirmwareFailures(t *testing.T) {
	s := fwSite(t)
	s.FirmwareFails[wftest.Compute] = "the update task ended Exception"
	_, err := s.RunAction(t, replaceIn(true))
	require.Error(t, err)
	requireAppErrorType(t, err, api.ErrActionFailed)
	assert.ErrorContains(t, err, "replace of rack1-c1 failed: firmware: BIOS: the update task ended Exception")
	assert.Empty(t, s.Reimages, "never reinstalled on the old firmware")
	assert.Equal(t, model.BMMError, s.LedgerBMM(wftest.Compute).DetailedStatus)

	unread := fwSite(t)
	unread.Firmware = nil
	_, err = unread.RunAction(t, replaceIn(true))
	requireAppErrorType(t, err, api.ErrPrecheck)
	assert.ErrorContains(t, err, "bmm rack1-c1's firmware could not be read to check it against the baseline of runtime 4.1.2")
	assert.Empty(t, unread.Leases())
}

// The firmware step ends at its limit, naming it, and the replace fails
// without reinstalling.
func TestReplaceFirmwareBoundedByItsLimit(t *testing.T) {
	s := fwSite(t)
	s.Delay["ApplyFirmware"] = 2 * time.Hour
	_, err := s.RunAction(t, replaceIn(true))
	require.Error(t, err)
	assert.ErrorContains(t, err, "firmware BIOS of rack1-c1 did not reach 1.13.2 within 1h0m0s (timeouts.firmware)")
	assert.Empty(t, s.Reimages)
}

// applyFirmware is refused as bad input with force, and on another action.
func TestApplyFirmwareBadInput(t *testing.T) {
	s := fwSite(t)
	_, err := s.RunAction(t, forced(replaceIn(true), "INC-9"))
	requireAppErrorType(t, err, api.ErrInvalidInput)
	assert.ErrorContains(t, err, "applyFirmware and force both true")
	in := wftest.Act(api.ActionReimage, wftest.Compute)
	in.ApplyFirmware = true
	_, err = s.RunAction(t, in)
	assert.ErrorContains(t, err, "applyFirmware true: only replace takes it (action is reimage)")
	assert.Empty(t, s.CallLog())
}

// The troubleshoot runbook's replace gets the same check: below the
// baseline, its replace is refused naming the components, nothing
// reinstalled. The runbook stops (not "contact support": the operator can
// proceed) and its step names the commands that do: the runbook again
// with --apply-firmware, its replace alone with the facts confirmed and
// the runbook's safeguard mode, or the runbook forced.
func TestTroubleshootReplaceChecksFirmware(t *testing.T) {
	s := fwSite(t)
	env := s.Env(t, api.TroubleshootID("site-a", wftest.Compute))
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(api.SignalConfirmReplace, api.ConfirmReplace{ReplaceParams: api.ReplaceParams{SerialNumber: "SN-NEW"}})
	}, time.Hour)
	env.ExecuteWorkflow(TroubleshootWorkflow, trouble(api.ProblemHardware))
	err := env.GetWorkflowError()
	require.Error(t, err)
	assert.ErrorContains(t, err, "replace of rack1-c1 refused: bmm rack1-c1's firmware is not at the baseline of runtime 4.1.2")
	assert.ErrorContains(t, err, "BIOS (Installed-159-1.10.0__BIOS.Setup.1-1) 1.10.0, requires 1.13.2")
	assert.NotContains(t, err.Error(), "contact support")
	var st api.TroubleshootStatus
	wftest.Query(t, env, &st)
	assert.Equal(t, api.TroubleshootUnresolved, st.Phase)
	require.Len(t, st.Steps, 1)
	step := st.Steps[0].Error
	assert.Contains(t, step, "run the runbook again with --apply-firmware: `starter bmm troubleshoot --cluster site-a --bmm rack1-c1 --problem hardware --apply-firmware`")
	assert.Contains(t, step, "the replace alone: `starter bmm replace --cluster site-a --bmm rack1-c1 --serial-number SN-NEW --safeguard-mode None --apply-firmware`")
	assert.Contains(t, step, "run the runbook again forced: `starter bmm troubleshoot --cluster site-a --bmm rack1-c1 --problem hardware --force --reason TEXT`")
	assert.Equal(t, 1, countOf(s.CallLog(), "ReadFirmware rack1-c1"))
	assert.Empty(t, s.Reimages)
	assert.Empty(t, s.FirmwareInputs)
	assert.Empty(t, s.Leases())
}

// With --apply-firmware the runbook's replace gets it: the baseline is
// applied inside that replace, and the runbook resolves.
func TestTroubleshootReplaceAppliesFirmware(t *testing.T) {
	s := fwSite(t)
	env := s.Env(t, api.TroubleshootID("site-a", wftest.Compute))
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(api.SignalConfirmReplace, api.ConfirmReplace{}) }, time.Hour)
	in := trouble(api.ProblemHardware)
	in.ApplyFirmware = true
	env.ExecuteWorkflow(TroubleshootWorkflow, in)
	require.NoError(t, env.GetWorkflowError())
	var st api.TroubleshootStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	assert.Equal(t, api.TroubleshootResolved, st.Phase, st.Message)
	assert.Equal(t, 1, countOf(s.CallLog(), "ApplyFirmware rack1-c1 BIOS"))
	assert.Equal(t, 1, countOf(s.CallLog(), "ApplyFirmware rack1-c1 iDRAC"))
	assert.Empty(t, firmware.Judge(s.St.Firmware["4.1.2"], s.FirmwareNow(wftest.Compute)).Below())
	assert.Empty(t, s.Leases())
}

func countOf(log []string, call string) int {
	n := 0
	for _, c := range log {
		if c == call {
			n++
		}
	}
	return n
}
