package workflows

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

func computeReimages(f *fakeSite) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, b := range f.reimages {
		if f.bmm(b).HasRole(model.RoleCompute) {
			out = append(out, b)
		}
	}
	return out
}

// onFirstPause checks the upgrade's status every simulated minute; at its
// first pause it calls at, then continues the upgrade.
func onFirstPause(t *testing.T, env *testsuite.TestWorkflowEnvironment, at func(api.UpgradeStatus)) *updateResult {
	var cont updateResult
	seen := false
	eachPause(t, env, 12*60, func(st api.UpgradeStatus) {
		if !seen {
			seen = true
			at(st)
			sendUpdate(env, api.UpdateContinue, "go-on", &cont, nil)
		}
	})
	return &cont
}

// The first two computes fail at the same step: the upgrade pauses after
// them, whatever its threshold (0 % here), before any other compute is
// reimaged, saying why; continue-update goes on with the rest.
func TestSystemicFailurePausesAfterTheCanary(t *testing.T) {
	f, env := siteEnv(t, "../examples/two-rack.yaml")
	f.failing["rack1-c1"], f.failing["rack1-c2"] = "the installer found no disk", "the installer found no disk"
	var paused *api.UpgradeStatus
	var atPause []string
	cont := onFirstPause(t, env, func(st api.UpgradeStatus) { paused, atPause = &st, computeReimages(f) })
	lenient := model.UpdateStrategy{ThresholdType: model.ThresholdPercentSuccess, ThresholdValue: 0, WaitTimeMinutes: intp(0)}
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(lenient))
	require.NoError(t, env.GetWorkflowError())

	require.NotNil(t, paused, "the upgrade paused")
	require.ElementsMatch(t, []string{"rack1-c1", "rack1-c2"}, atPause, "no other compute was reimaged before the operator's word")
	for _, want := range []string{"rack1-c1, rack1-c2", "the same step, reimage", "systemic"} {
		require.Contains(t, paused.DetailedStatusMessage, want)
	}
	require.Equal(t, api.StatePaused, paused.Racks[0].State)
	require.Contains(t, paused.Guards(), "canary: "+paused.DetailedStatusMessage)
	require.NoError(t, cont.rejected)
	require.True(t, cont.done)

	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	require.Greater(t, len(computeReimages(f)), 2, "continue went on with the rest")
	require.NotNil(t, st.Racks[0].ContinuedAt, "the operator's word is on record")
	require.Equal(t, "reimage", st.Racks[0].Servers[0].Step)
}

// One canary server failing is no pattern: no pause, and the canary's
// rack and the next one run on.
func TestOneCanaryFailureDoesNotPause(t *testing.T) {
	f, env := siteEnv(t, "../examples/two-rack.yaml")
	f.failing["rack1-c1"] = "the installer found no disk"
	lenient := model.UpdateStrategy{ThresholdType: model.ThresholdPercentSuccess, ThresholdValue: 0, WaitTimeMinutes: intp(0)}
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(lenient))
	require.NoError(t, env.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus)
	require.Nil(t, st.Racks[0].ContinuedAt, "never paused")
	require.Contains(t, st.Canary, "rack1-c2 succeeded")
	require.Equal(t, 1, st.Racks[0].Failed)
}
