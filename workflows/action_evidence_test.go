package workflows

import (
	"testing"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

// A restart or start is over only on the node's new boot: the wait names
// the boot ID read before the reset (docs/evidence.md).
func TestRestartAndStartWaitForANewBoot(t *testing.T) {
	s := newActionSite(t)
	before := s.status(compute).BootID
	_, err := s.runAction(t, act(api.ActionRestart, compute))
	require.NoError(t, err)
	require.Len(t, s.waits, 1)
	require.Equal(t, before, s.waits[0].PreviousBootID, "a node Ready before the reset is not back yet")

	s = newActionSite(t)
	s.power[compute] = model.PowerOff
	s.bmm(compute).PowerState, s.bmm(compute).ReadyState = model.PowerOff, model.ReadyFalse
	before = s.status(compute).BootID
	_, err = s.runAction(t, act(api.ActionStart, compute))
	require.NoError(t, err)
	require.Equal(t, before, s.waits[0].PreviousBootID)
}

// A machine already on when started is not reset: its current boot counts.
func TestStartOfAMachineAlreadyOnTakesItsBoot(t *testing.T) {
	s := newActionSite(t)
	s.power[compute] = model.PowerOn
	_, err := s.runAction(t, act(api.ActionStart, compute))
	require.NoError(t, err)
	require.Empty(t, s.waits[0].PreviousBootID)
}

// A reset the BMC accepted and never showed, and after which the node did
// not boot again, fails the restart naming the BMM, the reset and what the
// BMC showed; the ledger records it, never "restarted".
func TestRestartIgnoredByTheBMCFails(t *testing.T) {
	s := newActionSite(t)
	s.resetIgnored[compute] = true
	res, err := s.runAction(t, act(api.ActionRestart, compute))
	require.ErrorContains(t, err, "BMC of rack1-c1 accepted ForceRestart (204) but showed no change within 1m0s: PowerState On; node rack1-c1 did not boot again")
	require.NotContains(t, res.Message, "restarted")
	b := s.ledgerBMM(compute)
	require.Equal(t, model.BMMError, b.DetailedStatus)
	require.Contains(t, b.DetailedStatusMessage, "showed no change")
}

// Only a reset sent makes the boot before it stale.
func TestOnlyASentResetAsksForANewBoot(t *testing.T) {
	require.Equal(t, "", after("boot-1", bmc.PowerResult{}).previous, "no reset sent: any boot")
	require.Equal(t, "boot-1", after("boot-1", bmc.PowerResult{ResetType: "ForceRestart"}).previous)
}
