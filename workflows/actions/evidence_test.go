package actions

import (
	"testing"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/rackroll/rackroll/workflows/kernel"
	"github.com/stretchr/testify/require"
)

// A restart or start is over only on the node's new boot: the wait names
// the boot ID read before the reset (docs/evidence.md).
func TestRestartAndStartWaitForANewBoot(t *testing.T) {
	s := wftest.NewActionSite(t)
	before := s.Status(wftest.Compute).BootID
	_, err := s.RunAction(t, wftest.Act(api.ActionRestart, wftest.Compute))
	require.NoError(t, err)
	require.Len(t, s.Waits, 1)
	require.Equal(t, before, s.Waits[0].PreviousBootID, "a node Ready before the reset is not back yet")

	s = wftest.NewActionSite(t)
	s.Power[wftest.Compute] = model.PowerOff
	s.Bmm(wftest.Compute).PowerState, s.Bmm(wftest.Compute).ReadyState = model.PowerOff, model.ReadyFalse
	before = s.Status(wftest.Compute).BootID
	_, err = s.RunAction(t, wftest.Act(api.ActionStart, wftest.Compute))
	require.NoError(t, err)
	require.Equal(t, before, s.Waits[0].PreviousBootID)
}

// A machine already on when started is not reset: its current boot counts.
func TestStartOfAMachineAlreadyOnTakesItsBoot(t *testing.T) {
	s := wftest.NewActionSite(t)
	s.Power[wftest.Compute] = model.PowerOn
	_, err := s.RunAction(t, wftest.Act(api.ActionStart, wftest.Compute))
	require.NoError(t, err)
	require.Empty(t, s.Waits[0].PreviousBootID)
}

// A reset the BMC accepted and never showed, and after which the node did
// not boot again, fails the restart naming the BMM, the reset and what the
// BMC showed; the ledger records it, never "restarted".
func TestRestartIgnoredByTheBMCFails(t *testing.T) {
	s := wftest.NewActionSite(t)
	s.ResetIgnored[wftest.Compute] = true
	res, err := s.RunAction(t, wftest.Act(api.ActionRestart, wftest.Compute))
	require.ErrorContains(t, err, "BMC of rack1-c1 accepted ForceRestart (204) but showed no change within 1m0s: PowerState On; node rack1-c1 did not boot again")
	require.NotContains(t, res.Message, "restarted")
	b := s.LedgerBMM(wftest.Compute)
	require.Equal(t, model.BMMError, b.DetailedStatus)
	require.Contains(t, b.DetailedStatusMessage, "showed no change")
}

// Only a reset sent makes the boot before it stale.
func TestOnlyASentResetAsksForANewBoot(t *testing.T) {
	require.Equal(t, "", kernel.After("boot-1", bmc.PowerResult{}).Previous, "no reset sent: any boot")
	require.Equal(t, "boot-1", kernel.After("boot-1", bmc.PowerResult{ResetType: "ForceRestart"}).Previous)
}
