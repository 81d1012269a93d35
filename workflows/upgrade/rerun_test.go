package upgrade

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// Issue 15's reproduction: a two-rack upgrade (one KCP, one spare) with
// PauseAfterRack, cancelled at its first pause, then started again to the
// same target (strategy Rack). The re-run finishes the rest and leaves the table as the
// reference wants it: one KCP and one spare, in different racks, the
// retired spare untouched (it keeps its version by design).
func TestRerunAfterCancelKeepsOneKCPAndOneSpare(t *testing.T) {
	f := wftest.NewFakeSite(t, wftest.Example("two-rack.yaml"))
	strategy := model.UpdateStrategy{StrategyType: model.StrategyPauseAfterRack}

	env := f.NewEnv()
	var cancel wftest.UpdateResult
	env.RegisterDelayedCallback(func() { wftest.SendUpdate(env, api.UpdateCancel, "c1", &cancel, nil) }, 3*time.Hour)
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(strategy))
	require.NoError(t, env.GetWorkflowError())
	require.NoError(t, cancel.Rejected)
	var first api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&first))
	require.Equal(t, api.StateCancelled, first.DetailedStatus)
	reimaged := len(f.Reimages)

	env = f.NewEnv()
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())
	var second api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&second))
	require.Equal(t, model.ClusterRunning, second.DetailedStatus, second.DetailedStatusMessage)

	var kcps, spares []model.BMM
	for _, b := range f.St.Cluster.BMMs {
		switch b.Roles[0] {
		case model.RoleKCP:
			kcps = append(kcps, b)
		case model.RoleKCPSpare:
			spares = append(spares, b)
		}
	}
	require.Len(t, kcps, 1, "the table's one active KCP")
	require.Len(t, spares, 1, "and one spare")
	require.NotEqual(t, kcps[0].Rack, spares[0].Rack, "in different racks")
	require.Equal(t, "4.2.0", kcps[0].RuntimeVersion)
	for _, st := range second.ControlPlane.Servers {
		require.Equal(t, api.StateSkipped, st.State, "the control plane was done: %s", st.Name)
	}
	for _, b := range f.Reimages[reimaged:] {
		require.NotEqual(t, spares[0].Name, b, "the retired spare is not reimaged by the re-run")
		bm := f.Bmm(b)
		require.Equal(t, model.RoleCompute, bm.Roles[0], "the re-run only finishes compute: %s", b)
	}
}

// A KCP that fails its reimage fails the upgrade (Failed, message naming
// the server); running the upgrade again resumes it, skipping servers at
// the target.
func TestKCPFailureFailsThenResumes(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	kcp, spare := wftest.PlacedRoles(f)
	f.Failing[kcp[1]] = "reimage failed: no bootable OS"
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	err := env.GetWorkflowError()
	require.Error(t, err)
	require.Contains(t, err.Error(), "KCP "+kcp[1]+" failed to upgrade")
	require.Equal(t, model.ClusterFailed, f.St.Cluster.DetailedStatus)
	require.Contains(t, f.St.Cluster.DetailedStatusMessage, kcp[1])
	require.Equal(t, []string{spare, kcp[0], kcp[1]}, f.Reimages)
	require.Empty(t, f.St.Leases)

	// The operator fixes the server and runs the upgrade again.
	delete(f.Failing, kcp[1])
	f.Reimages = nil
	f.Mu.Lock()
	b := f.Bmm(kcp[1])
	b.DetailedStatus, b.DetailedStatusMessage = model.BMMProvisioned, ""
	f.Mu.Unlock()
	env2 := f.NewEnv()
	env2.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{WaitTimeMinutes: wftest.Intp(0)}))
	require.NoError(t, env2.GetWorkflowError())
	require.Equal(t, kcp[1], f.Reimages[0], "resumes at the failed KCP; the spare and the first KCP are skipped")
	require.NotContains(t, f.Reimages, spare)
	require.NotContains(t, f.Reimages, kcp[0])
	require.Equal(t, model.RoleKCPSpare, f.Role(kcp[2]))
	require.Equal(t, "4.2.0", f.St.Cluster.RuntimeVersion)
}
