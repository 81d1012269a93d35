package workflows

import (
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

func rackReimages(f *fakeSite, rack string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, b := range f.reimages {
		if f.bmm(b).Rack == rack && f.bmm(b).HasRole(model.RoleCompute) {
			n++
		}
	}
	return n
}

// capacityPolicy Pause: rack2's pods have no room elsewhere, so the
// upgrade pauses before draining it, naming the rack, the shortfall and
// the pods; continue-update drains it anyway.
func TestCapacityPausePausesBeforeTheDrain(t *testing.T) {
	f, env := siteEnv(t, "../examples/two-rack.yaml")
	f.noRoom[f.bmm("rack2-c1").NodeName] = true
	var paused *api.UpgradeStatus
	var rack2AtPause int
	cont := onFirstPause(t, env, func(st api.UpgradeStatus) { paused, rack2AtPause = &st, rackReimages(f, "rack2") })
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{WaitTimeMinutes: intp(0), CapacityPolicy: model.CapacityPause}))
	require.NoError(t, env.GetWorkflowError())

	require.NotNil(t, paused)
	require.Zero(t, rack2AtPause, "paused before rack2 was drained")
	for _, want := range []string{"rack2", "short by 40.0 CPU", "tenant/app-" + f.bmm("rack2-c1").NodeName + "-0", "continue-update"} {
		require.Contains(t, paused.DetailedStatusMessage, want)
	}
	require.Equal(t, api.StatePaused, paused.Racks[1].State)
	require.True(t, cont.done)
	require.NoError(t, cont.rejected)
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	require.Positive(t, rackReimages(f, "rack2"), "continued: drained and upgraded")
}

// capacityPolicy Warn (the default): the upgrade proceeds, and its status
// names the pods that will be left Pending; every batch was checked.
func TestCapacityWarnProceedsAndNamesThePods(t *testing.T) {
	f, env := siteEnv(t, "../examples/two-rack.yaml")
	f.noRoom[f.bmm("rack2-c1").NodeName] = true
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{WaitTimeMinutes: intp(0)}))
	require.NoError(t, env.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus)
	var short []api.CapacityCheck
	for _, c := range st.Capacity {
		if !c.Fits {
			short = append(short, c)
		}
	}
	require.Len(t, short, 1, "%+v", st.Capacity)
	require.Equal(t, "rack2", short[0].Unit)
	require.Equal(t, []string{"tenant/app-" + f.bmm("rack2-c1").NodeName + "-0"}, short[0].Pending)
	require.True(t, strings.Contains(strings.Join(st.Guards(), "\n"), "capacity SHORT: rack2"))
	// A management stage per group here, the canary, the rest of rack1, rack2.
	require.Equal(t, [][]string{{"rack1-mgmt2"}, {"rack2-mgmt2"}, {"rack1-c1", "rack1-c2"}, {"rack1-c3", "rack1-c4"},
		{"rack2-c1", "rack2-c2", "rack2-c3", "rack2-c4"}}, f.capacityChecks)
}
