package server

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

// Nothing of a reimage runs after its limit but the eject, a clean-up with
// its own limit in the table (timeouts.media): an eject that hangs ends
// there, and the failure names the key.
func TestAnEjectThatHangsEndsAtTheMediaLimit(t *testing.T) {
	f, res, took := upgradeOne(t, func(f *wftest.FakeSite, _ *testsuite.TestWorkflowEnvironment) {
		f.St.Timeouts = model.DefaultTimeouts()
		f.St.Timeouts.Media = model.Duration(5 * time.Minute)
		f.Delay["EjectMedia"] = 2 * time.Hour // a BMC whose virtual media never answers
	})
	require.False(t, res.Succeeded)
	require.Contains(t, res.Error, "node rack1-c1 is back on 4.2.0, but ejecting the installer failed")
	require.Contains(t, res.Error, "within 5m0s (timeouts.media)")
	require.Less(t, took, time.Hour, "ended by the media limit, not by the hanging eject")
	require.Equal(t, "4.1.2", f.LedgerBMM(wftest.Compute).RuntimeVersion, "not recorded upgraded")
}
