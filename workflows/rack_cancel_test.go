package workflows

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

// cancel-update takes effect within seconds: the rack in flight marks its
// servers not yet started Cancelled and reports them at once, while the
// servers in flight finish.
func TestCancelUpdateShowsWithinSeconds(t *testing.T) {
	f, env := siteEnv(t, "../examples/four-rack.yaml")
	f.delay["Reimage"] = 20 * time.Minute
	var cancel updateResult
	var after api.UpgradeStatus
	sent := false
	query := func() api.UpgradeStatus {
		var st api.UpgradeStatus
		query(t, env, &st)
		return st
	}
	for m := 5; m < 24*60; m += 5 {
		env.RegisterDelayedCallback(func() {
			if sent {
				return
			}
			st := query()
			if st.Phase != api.PhaseCompute || len(st.Racks[0].Running()) == 0 {
				return
			}
			sent = true
			sendUpdate(env, api.UpdateCancel, "c1", &cancel, nil)
			env.RegisterDelayedCallback(func() { after = query() }, 10*time.Second)
		}, time.Duration(m)*time.Minute)
	}
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{MaxUnavailable: 2, WaitTimeMinutes: intp(0)}))
	require.NoError(t, env.GetWorkflowError())
	require.True(t, sent, "the compute phase was reached")
	require.NoError(t, cancel.rejected)

	rack := after.Racks[0]
	require.Len(t, rack.Running(), 2, "the two servers in flight keep going")
	cancelled := 0
	for _, s := range rack.Servers {
		if s.State == api.StateCancelled {
			cancelled++
		}
	}
	require.Equal(t, len(rack.Servers)-2, cancelled, "the rest are Cancelled 10 s after the cancel: %v", rack.Servers)

	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.StateCancelled, st.DetailedStatus)
	require.Equal(t, 2, st.Racks[0].Succeeded, "the servers in flight finished")
}
