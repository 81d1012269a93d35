package selfupgrade_test

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/workflows/upgrade"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/history/v1"
)

// Issue 38's upgrade across builds, on the server: a lab runtime upgrade
// starts on build A with PauseAfterRack and pauses after its first rack;
// B is made current and the run woken (`self-upgrade`); the upgrade moves
// to B at its pause (a new run, on B, Pinned), is still paused there,
// and once continued finishes on B with every server at the target and
// `starter lab check` clean; the ledger and the health monitor, started
// on A too, move with it (the monitor between rounds, the ledger on its
// next task), each carrying its state, and so does the keyset nodes run
// waiting for its expiry (on the wake); A drains.
// B's rack workflow carries a change that is not behind GetVersion (a
// timer first): rack 2 runs it on B, rack 1's history from A does not
// replay on it, and no workflow task failed anywhere — no A run replayed
// on B.
func TestE2EUpgradeMovesToTheCurrentBuildAtItsPause(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{
		Drainage: 2 * time.Second,
		// Two racks of two computes: a rack before the move, one after.
		Mutate:      func(inv *model.Inventory) { e2e.KeepComputes(inv, 2, nil) },
		StartWorker: func(e *e2e.Env) { startBuild(e, "A"); makeCurrent(e, "A") },
	})
	env.StartMonitor()
	id, ledger, monitor := api.UpgradeID(env.Cluster), api.ClusterID(env.Cluster), api.MonitorID(env.Cluster)
	logHistory(env, id)
	for _, w := range []string{ledger, monitor} {
		env.Eventually(time.Minute, w+" on A", func() bool { b, _, _ := onBuild(env, w); return b == "A" })
	}
	before := env.State()
	ctx := env.Context(10 * time.Minute)
	// Issue 49: a BMM keyset, its nodes run waiting on A for the expiry.
	env.KeysOnEveryNode(ctx)
	keys := api.KeysetNodesID(env.Cluster)
	env.Eventually(time.Minute, keys+" on A", func() bool { b, _, _ := onBuild(env, keys); return b == "A" })
	zero := 0
	run := env.StartUpgradeWith(ctx, model.UpdateStrategy{StrategyType: model.StrategyPauseAfterRack, WaitTimeMinutes: &zero})
	paused := env.AwaitPaused(ctx, 5*time.Minute, "the upgrade paused after its first rack")
	build, behavior, first := onBuild(env, id)
	require.Equal(t, "A", build)
	require.Equal(t, enumspb.VERSIONING_BEHAVIOR_PINNED.String(), behavior)

	startBuild(env, "B", changedRack)
	makeCurrent(env, "B")
	// The wake makes a workflow task; the server says "another build" on
	// one only once the routing change reached the queue, so it is sent
	// until the run has moved, as `starter self-upgrade wake` would be.
	env.Eventually(2*time.Minute, "the upgrade moved to B", func() bool {
		_ = env.Client.SignalWorkflow(ctx, id, "", api.SignalSelfUpgrade, nil)
		b, _, r := onBuild(env, id)
		return b == "B" && r != first
	})
	_, behavior, _ = onBuild(env, id)
	require.Equal(t, enumspb.VERSIONING_BEHAVIOR_PINNED.String(), behavior, "pinned to B after its move")
	// The keyset run has no task while it waits: `self-upgrade wake`
	// signals it too, and it moves at its wait.
	env.Eventually(2*time.Minute, keys+" moved to B on the wake", func() bool {
		require.Regexp(t, keys+` +running +rackroll:[AB] +\S+ +true`, starter(env, "self-upgrade", "wake", "--cluster", env.Cluster))
		b, _, _ := onBuild(env, keys)
		return b == "B"
	})
	// What the operator reads: the upgrade's build in its status, every
	// long run's in `cluster show` and `self-upgrade status`.
	require.Contains(t, starter(env, "upgrade", "status", "--cluster", env.Cluster), "builds: "+id+" rackroll:B pinned")
	require.Contains(t, starter(env, "cluster", "show", "--cluster", env.Cluster), id+" rackroll:B pinned")
	require.Regexp(t, id+` +running +rackroll:B +pinned`, starter(env, "self-upgrade", "status", "--cluster", env.Cluster))
	again := env.AwaitPaused(ctx, time.Minute, "still paused on B")
	require.Equal(t, paused.DetailedStatusMessage, again.DetailedStatusMessage, "the same pause")
	require.Equal(t, paused.StartedAt.Unix(), again.StartedAt.Unix(), "the same upgrade")

	env.Continue(ctx)
	var st api.UpgradeStatus
	require.NoError(t, run.Get(ctx, &st), "the upgrade, followed across its move")
	require.Equal(t, api.PhaseDone, st.Phase)
	cs := env.State()
	require.Equal(t, "4.2.0", cs.Cluster.RuntimeVersion)
	for _, b := range cs.Cluster.BMMs {
		if !b.HasRole(model.RoleKCPSpare) {
			require.Equal(t, "4.2.0", b.RuntimeVersion, b.Name)
			require.Equal(t, model.Uncordoned, b.CordonStatus, b.Name)
		}
	}
	site, err := invariants.SiteFromInventory(env.Inventory)
	require.NoError(t, err)
	require.Empty(t, invariants.Check(env.Events(), invariants.WithUpgrade(site, st)), "starter lab check: violations after the upgrade")
	for _, w := range []string{id, ledger, monitor} {
		env.Eventually(time.Minute, w+" on B", func() bool { b, _, _ := onBuild(env, w); return b == "B" })
		_, behavior, _ := onBuild(env, w)
		require.Equal(t, enumspb.VERSIONING_BEHAVIOR_PINNED.String(), behavior, "%s pinned to B", w)
	}
	require.Equal(t, len(before.Cluster.BMMs), len(cs.Cluster.BMMs), "the ledger carried its BMMs")
	for i, b := range before.Cluster.BMMs {
		require.Equal(t, b.Name, cs.Cluster.BMMs[i].Name)
	}
	onA, onB := rackRuns(env)
	require.NotEmpty(t, onA, "rack 1's children ran on A")
	require.NotEmpty(t, onB, "rack 2's ran B's changed workflow")
	for name, h := range onA {
		require.NoError(t, replaysOn(h, upgrade.RackUpgradeWorkflow), "%s replays on A's code", name)
		require.Error(t, replaysOn(h, rackOnB), "%s: B's change is non-deterministic for an A history", name)
	}
	onA[id] = historyOf(env, id)
	for _, runs := range []map[string]*history.History{onA, onB} {
		for name, h := range runs {
			require.Zero(t, failedTasks(h), "%s: no workflow task failed", name)
		}
	}
	drained(env, "A", time.Minute)
}
