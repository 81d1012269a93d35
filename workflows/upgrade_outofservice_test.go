package workflows

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/rackroll/rackroll/workflows/upgrade"
	"github.com/stretchr/testify/require"
)

// While an upgrade owes servers, a reimage action installs the target on
// a server whose phase has run, not the server's own old version.
func TestReimageInstallsTheVersionTheClusterConvergesTo(t *testing.T) {
	f := wftest.NewActionSite(t)
	f.Failing[wftest.Compute] = "image checksum mismatch"
	wftest.RunUpgrade(t, f, upgrade.RuntimeUpgradeWorkflow)
	require.Equal(t, "4.1.2", f.LedgerBMM(wftest.Compute).RuntimeVersion)
	delete(f.Failing, wftest.Compute)
	b := f.Bmm(wftest.Compute)
	b.DetailedStatus, b.DetailedStatusMessage = model.BMMProvisioned, "" // as an operator's repair leaves it

	res, err := f.RunAction(t, wftest.Act(api.ActionReimage, wftest.Compute))
	require.NoError(t, err)
	require.Contains(t, res.Message, "on runtime 4.2.0")
	require.Equal(t, "4.2.0", f.LedgerBMM(wftest.Compute).RuntimeVersion)
	require.Equal(t, wftest.Compute+"@4.2.0", f.Reimages[len(f.Reimages)-1])
}
