package selfupgrade_test

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Rollback mid-run: an upgrade that moved from A to B at its first pause
// runs its second rack on B; the operator makes A current again; at its
// next pause the run moves back to A (reading B's carry) and finishes
// there, every server at the target, `starter lab check` clean; B drains.
// The builds are central workers and one unversioned site worker runs the
// BMC and Kubernetes activities of both (docs/self-upgrade.md, "Site
// workers stay unversioned").
func TestE2EUpgradeRollsBackToTheEarlierBuild(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/four-rack.yaml", e2e.Options{
		Drainage: 2 * time.Second,
		// One compute a rack: four racks, three pauses, a move at two.
		Mutate:      func(inv *model.Inventory) { e2e.KeepComputes(inv, 1, nil) },
		StartWorker: func(e *e2e.Env) { startSiteWorker(e); startBuild(e, "A"); makeCurrent(e, "A") },
	})
	id := api.UpgradeID(env.Cluster)
	logHistory(env, id)
	ctx := env.Context(12 * time.Minute)
	zero := 0
	run := env.StartUpgradeWith(ctx, model.UpdateStrategy{StrategyType: model.StrategyPauseAfterRack, WaitTimeMinutes: &zero})
	// moveTo makes build current and wakes the paused run until it is there.
	moveTo := func(build string) {
		_, _, before := onBuild(env, id)
		makeCurrent(env, build)
		env.Eventually(2*time.Minute, "the upgrade moved to "+build, func() bool {
			_ = env.Client.SignalWorkflow(ctx, id, "", api.SignalSelfUpgrade, nil)
			b, _, r := onBuild(env, id)
			return b == build && r != before
		})
	}
	first := env.AwaitPaused(ctx, 5*time.Minute, "paused after rack 1")
	startBuild(env, "B")
	moveTo("B")
	// The run on B restores its state before it is paused again (a
	// continue sent in between would be taken: issue 51); the test waits
	// for the pause to see it is the same one.
	onB := env.AwaitPaused(ctx, time.Minute, "still paused after rack 1, on B")
	require.Equal(t, first.DetailedStatusMessage, onB.DetailedStatusMessage, "the same pause")
	env.Continue(ctx)
	env.Eventually(5*time.Minute, "paused after rack 2", func() bool {
		st, ok := env.UpgradeStatus(ctx)
		return ok && st.DetailedStatus == model.ClusterUpdatePaused && st.DetailedStatusMessage != first.DetailedStatusMessage
	})
	moveTo("A") // the rollback
	second := env.AwaitPaused(ctx, time.Minute, "still paused after rack 2, on A")
	require.Contains(t, second.DetailedStatusMessage, "continue-update to start rack rack3")
	require.Equal(t, first.StartedAt.Unix(), second.StartedAt.Unix(), "the same upgrade")
	env.Continue(ctx)
	env.Eventually(5*time.Minute, "paused after rack 3", func() bool {
		st, ok := env.UpgradeStatus(ctx)
		return ok && st.DetailedStatus == model.ClusterUpdatePaused && st.DetailedStatusMessage != second.DetailedStatusMessage
	})
	env.Continue(ctx)

	var st api.UpgradeStatus
	require.NoError(t, run.Get(ctx, &st), "the upgrade, followed across its moves")
	require.Equal(t, api.PhaseDone, st.Phase)
	b, _, _ := onBuild(env, id)
	require.Equal(t, "A", b, "it finished on A")
	for _, r := range st.Racks {
		require.Equal(t, api.StateSucceeded, r.State, r.Name)
	}
	cs := env.State()
	require.Equal(t, "4.2.0", cs.Cluster.RuntimeVersion)
	for _, bm := range cs.Cluster.BMMs {
		if !bm.HasRole(model.RoleKCPSpare) {
			require.Equal(t, "4.2.0", bm.RuntimeVersion, bm.Name)
		}
	}
	site, err := invariants.SiteFromInventory(env.Inventory)
	require.NoError(t, err)
	require.Empty(t, invariants.Check(env.Events(), invariants.WithUpgrade(site, st)), "starter lab check: violations after the upgrade")
	// Rack 2 ran on B, the others on A: each server's reimage went to the
	// one site queue and completed there.
	for _, ref := range env.Inventory.Servers() {
		if ref.Server.Role != model.RoleCompute {
			continue
		}
		id := api.ServerUpgradeID(env.Cluster, ref.Server.Name)
		want := "A"
		if ref.Rack == "rack2" {
			want = "B"
		}
		require.Equal(t, want, ranOn(env, id), id)
		require.Equal(t, model.SiteTaskQueue(env.Cluster), reimagedOn(env, id), id)
	}
	drained(env, "B", time.Minute)
}

// ranOn is the build that completed workflow id's workflow tasks.
func ranOn(e *e2e.Env, id string) string {
	for _, ev := range historyOf(e, id).Events {
		if a := ev.GetWorkflowTaskCompletedEventAttributes(); a != nil {
			return a.GetDeploymentVersion().GetBuildId()
		}
	}
	return ""
}

// reimagedOn is the task queue of workflow id's Reimage activity, when it
// completed.
func reimagedOn(e *e2e.Env, id string) string {
	queue := map[int64]string{}
	for _, ev := range historyOf(e, id).Events {
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "Reimage" {
			queue[ev.GetEventId()] = a.GetTaskQueue().GetName()
		}
		if a := ev.GetActivityTaskCompletedEventAttributes(); a != nil && queue[a.GetScheduledEventId()] != "" {
			return queue[a.GetScheduledEventId()]
		}
	}
	return ""
}
