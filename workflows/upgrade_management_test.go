package workflows

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/stretchr/testify/require"
)

// A management group whose first stage failed so badly that it can no
// longer reach 50 % pauses before its second stage: a bad image does not
// take the rest of the group down. Cancelled there, stage 2 never runs.
func TestManagementStageTwoWaitsForTheThreshold(t *testing.T) {
	f, env := siteEnv(t, "../examples/four-rack.yaml")
	stage1, stage2 := []string{"rack1-mgmt2", "rack3-mgmt2"}, "rack4-mgmt3"
	for _, b := range stage1 {
		f.failing[b] = "image checksum mismatch"
	}
	var paused api.UpgradeStatus
	var calls []string
	var cancel updateResult
	env.RegisterDelayedCallback(func() {
		query(t, env, &paused)
		calls = f.callLog()
		sendUpdate(env, api.UpdateCancel, "c1", &cancel, nil)
	}, 3*time.Hour)
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())

	require.Equal(t, [][]string{stage1, {stage2}}, paused.Plan.Management[0].Stages, "the example's group a")
	require.Equal(t, model.ClusterUpdatePaused, paused.DetailedStatus)
	require.Contains(t, paused.DetailedStatusMessage, "management group a: 2 of 3 servers failed (rack1-mgmt2, rack3-mgmt2)")
	require.Contains(t, paused.DetailedStatusMessage, "stage 2 not started")
	require.Equal(t, api.StatePaused, paused.ManagementGroups[0].State)
	require.Equal(t, -1, indexOf(calls, "Reimage "+stage2), "stage 2 did not start while paused")
	require.NoError(t, cancel.rejected)
	require.Equal(t, -1, indexOf(f.callLog(), "Reimage "+stage2), "nor after the cancel")
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.StateCancelled, st.DetailedStatus)
}

func TestUnreachable(t *testing.T) {
	u := upgradeplan.UnitStatus{Name: "a", Total: 3, Required: 2, Servers: []upgradeplan.ServerStatus{
		{Name: "x", State: upgradeplan.StatePending}, {Name: "y", State: upgradeplan.StatePending}, {Name: "z", State: upgradeplan.StatePending}}}
	require.Empty(t, u.Unreachable(2), "nothing ran yet")
	u.Apply(upgradeplan.ServerStatus{Name: "x", State: upgradeplan.StateFailed})
	require.Empty(t, u.Unreachable(2), "one failed: the two left can still make it")
	u.Apply(upgradeplan.ServerStatus{Name: "y", State: upgradeplan.StateFailed})
	require.Contains(t, u.Unreachable(2), "2 of 3 servers failed (x, y), so it can no longer reach 2")
}
