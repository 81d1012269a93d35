package upgrade_test

import (
	"slices"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Issue 24, stop on systemic failure: the first two computes of the first
// rack fail their install; with a threshold of 0 % the upgrade still
// pauses after those two, before any other compute is reimaged, naming
// the step and the servers. Continue goes on with the rest.
func TestE2ESystemicFailurePausesTheUpgrade(t *testing.T) {
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		inv.Timeouts = &model.TimeoutsSpec{Reimage: durationOf(40 * time.Second)}
		inv.Lab = []byte(`{"timings": {"boot": "3s", "reimage": "5s", "powerTransition": "1s", "drain": "1s"},
			"faults": [{"bmm": "rack1-c1", "kind": "reimage-fails"}, {"bmm": "rack1-c2", "kind": "reimage-fails"}]}`)
	}})
	ctx := env.Context(12 * time.Minute)
	run := env.StartUpgradeWith(ctx, model.UpdateStrategy{ThresholdType: model.ThresholdPercentSuccess, ThresholdValue: 0, WaitTimeMinutes: new(int)})
	st := env.AwaitPaused(ctx, 8*time.Minute, "the upgrade pauses after the canary")
	for _, want := range []string{"rack1-c1, rack1-c2", "same step", "systemic"} {
		require.Contains(t, st.DetailedStatusMessage, want)
	}
	computes := 0
	for _, e := range env.Lab.Events.Events() {
		if e.Kind == events.ReimageStart && e.BMM != "rack1-c1" && e.BMM != "rack1-c2" && env.BMM(e.BMM).HasRole(model.RoleCompute) {
			computes++
		}
	}
	require.Zero(t, computes, "no other compute reimaged before the operator's word")

	env.Continue(ctx)
	require.NoError(t, run.Get(ctx, &st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	require.Equal(t, "4.2.0", env.BMM("rack2-c4").RuntimeVersion, "the rest went on")

	// The lab checker holds the log to the same rule: nothing outside the
	// canary started before the operator's word.
	site, err := invariants.SiteFromInventory(env.Inventory)
	require.NoError(t, err)
	site = invariants.WithUpgrade(site, st)
	require.True(t, slices.ContainsFunc(site.Units, func(u invariants.Unit) bool { return u.Systemic && u.ContinuedAt != nil }), "%+v", site.Units)
	for _, v := range invariants.Check(env.Lab.Events.Events(), site) {
		require.NotEqual(t, invariants.RuleSystemic, v.Rule, v.String())
	}
}
