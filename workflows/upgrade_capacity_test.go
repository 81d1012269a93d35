package workflows

import (
	"slices"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

// A server after its rack's first wave is a batch of its own: rack2's
// first wave (c1, c2) fits, rack2-c3's pods do not. Under Pause the rack
// finishes its first wave, starts nothing more and the upgrade pauses
// naming rack2-c3; continue-update runs the servers kept back.
func TestCapacityPauseHoldsALaterServer(t *testing.T) {
	f, env := siteEnv(t, "../examples/two-rack.yaml")
	f.noRoom[f.bmm("rack2-c3").NodeName] = true
	var paused *api.UpgradeStatus
	var atPause []string
	cont := onFirstPause(t, env, func(st api.UpgradeStatus) { paused, atPause = &st, reimagesIn(f, "rack2") })
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{MaxUnavailable: 2, WaitTimeMinutes: intp(0),
		CapacityPolicy: model.CapacityPause}))
	require.NoError(t, env.GetWorkflowError())

	require.NotNil(t, paused)
	require.ElementsMatch(t, []string{"rack2-c1", "rack2-c2"}, atPause, "the first wave ran, nothing after it")
	require.Contains(t, paused.DetailedStatusMessage, "rack2 rack2-c3")
	require.Contains(t, paused.DetailedStatusMessage, "tenant/app-"+f.bmm("rack2-c3").NodeName+"-0")
	require.Empty(t, paused.Racks[1].Running())
	require.True(t, cont.done)
	require.NoError(t, cont.rejected)

	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	require.Equal(t, 4, st.Racks[1].Succeeded, "continued: the servers kept back ran")
	require.Len(t, reimagesIn(f, "rack2"), 4, "each once")
	i := slices.IndexFunc(st.Capacity, func(c api.CapacityCheck) bool { return c.Held })
	require.GreaterOrEqual(t, i, 0, "%+v", st.Capacity)
	require.Equal(t, "rack2 rack2-c3", st.Capacity[i].Unit)
	require.Equal(t, []string{"rack2-c3", "rack2-c4"}, st.Capacity[i].Servers)
	require.NotNil(t, st.Capacity[i].ContinuedAt)
}

// Under Warn the later server is drained anyway, and the status names its
// Pending pods; the servers that fit add nothing to the status.
func TestCapacityWarnNamesALaterServersPods(t *testing.T) {
	f, env := siteEnv(t, "../examples/two-rack.yaml")
	f.noRoom[f.bmm("rack2-c3").NodeName] = true
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{MaxUnavailable: 2, WaitTimeMinutes: intp(0)}))
	require.NoError(t, env.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus)
	var units []string
	for _, c := range st.Capacity {
		if !c.Fits {
			units = append(units, c.Unit)
			require.Equal(t, []string{"tenant/app-" + f.bmm("rack2-c3").NodeName + "-0"}, c.Pending)
		}
	}
	require.Equal(t, []string{"rack2 rack2-c3"}, units, "%+v", st.Capacity)
	require.Contains(t, f.capacityChecks, []string{f.bmm("rack2-c4").NodeName}, "every later server is checked")
}

func reimagesIn(f *fakeSite, rack string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, b := range f.reimages {
		if f.bmm(b).Rack == rack && f.bmm(b).HasRole(model.RoleCompute) {
			out = append(out, b)
		}
	}
	return out
}
