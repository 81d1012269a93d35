package workflows

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

// A server upgrade cancelled after its reimage and uncordon (here as its
// VMs restart) still records the new version: the upgrade counts it
// upgraded, so a ledger left on the old version would never be finished
// by a re-run (TestPropertyConvergeAfterInterruptions seed 20261398).
func TestServerUpgradeCancelledAfterReimageRecordsVersion(t *testing.T) {
	f := newFakeSite(t, "../examples/two-rack.yaml")
	const bmm = "rack1-c1"
	env := f.newEnv()
	cancel := false
	f.onStep = func(activity, _ string) error {
		cancel = cancel || activity == "StartVMs"
		return nil
	}
	f.afterAnswer = func() {
		f.mu.Lock()
		now := cancel
		cancel = false
		f.mu.Unlock()
		if now {
			env.CancelWorkflow()
		}
	}
	env.ExecuteWorkflow(ServerUpgradeWorkflow, api.ServerInput{Cluster: "site-a", BMM: bmm, TargetVersion: "4.2.0", ImageURL: "http://images/rackroll-4.2.0.iso"})
	require.True(t, env.IsWorkflowCompleted())
	require.Contains(t, f.callLog(), "StartVMs "+bmm, "the cancel came as the VMs restarted")
	b := f.ledgerBMM(bmm)
	require.Equal(t, "4.2.0", b.RuntimeVersion, "the reimage happened: the ledger says so")
	require.Equal(t, model.BMMProvisioned, b.DetailedStatus)
	require.Empty(t, f.leases(), "the lease is released")
}
