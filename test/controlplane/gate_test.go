package controlplane_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Issue 14's reproduction on the lab: a one-rack site (three KCPs, no
// spare), rack1-mgmt2's node goes Unknown; a restart of rack1-mgmt1 is
// refused naming rack1-mgmt2, and an upgrade touches no KCP while the fault
// lasts: it pauses naming the server.
func TestE2EGateRefusesWhileAnotherKCPIsUnknown(t *testing.T) {
	env := e2e.Start(t, "../../examples/one-rack.yaml", e2e.Options{})
	ctx := env.Context(5 * time.Minute)
	require.NoError(t, env.Lab.SetFault("rack1-mgmt2", faults.NodeUnknown, 0, false))
	acts := env.Kube()
	env.Eventually(time.Minute, "rack1-mgmt2 Unknown in the API", func() bool {
		o, err := acts.ObserveControlPlane(ctx, []string{"rack1-mgmt2"})
		return err == nil && len(o.Nodes) == 1 && o.Nodes[0].Ready == model.ReadyUnknown
	})
	require.Equal(t, model.ReadyTrue, env.BMM("rack1-mgmt2").ReadyState, "the ledger's memory still says Ready")

	err := env.StartAction(ctx, 1, api.ActionInput{BMM: "rack1-mgmt1", Action: api.ActionRestart}).Get(ctx, nil)
	require.Error(t, err, "the restart must be refused")
	for _, w := range []string{"restart of rack1-mgmt1 refused", "rack1-mgmt2", "Ready=Unknown", "seen at"} {
		require.Contains(t, err.Error(), w)
	}
	require.Empty(t, env.State().Leases, "no lease held")

	before := env.Lab.ReimageCounts()
	up, err := env.StartUpgrade(ctx, "4.2.0")
	require.NoError(t, err)
	var st api.UpgradeStatus
	env.Eventually(2*time.Minute, "the upgrade pauses naming rack1-mgmt2", func() bool {
		v, err := env.Client.QueryWorkflow(ctx, api.UpgradeID(env.Cluster), "", api.QueryStatus)
		if err != nil || v.Get(&st) != nil {
			return false
		}
		return st.DetailedStatus == model.ClusterUpdatePaused
	})
	require.Contains(t, st.DetailedStatusMessage, "live control-plane check")
	require.Contains(t, st.DetailedStatusMessage, "rack1-mgmt2")
	require.Equal(t, before, env.Lab.ReimageCounts(), "no server reimaged while paused")
	// The query shows the pause as the workflow decides it; the ledger's
	// write follows as an activity.
	env.Eventually(30*time.Second, "the ledger records the pause", func() bool {
		return env.State().Cluster.DetailedStatus == model.ClusterUpdatePaused
	})

	// Cancelled while paused: the upgrade ends touching nothing.
	require.NoError(t, env.Update(ctx, api.UpgradeID(env.Cluster), api.UpdateCancel, nil))
	require.NoError(t, up.Get(ctx, &st))
	require.Equal(t, before, env.Lab.ReimageCounts())
	// The gate's commands (observations, version markers, the pause) replay.
	env.RecordHistories(api.ActionID(env.Cluster, "rack1-mgmt1", 1), api.UpgradeID(env.Cluster))

	evs := env.Events()
	for _, e := range evs {
		if strings.HasPrefix(e.BMM, "rack1-mgmt") && (e.Kind == events.Reset || e.Kind == events.PowerOff || e.Kind == events.ReimageStart) {
			t.Errorf("a KCP was disrupted: %v", e)
		}
	}
}
