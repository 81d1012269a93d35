package selfupgrade_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// rolledOut is a lab upgrade with the default strategy (Rack: no pause)
// started on build A, with the ledger, the monitor, a BMC keyset's run and
// the keyset nodes run waiting for their expiry on A too, and, while rack1
// runs, `starter self-upgrade rollout --build B`: the upgrade finishes
// rack1 on A and moves to B before rack2 starts, without a pause; every
// long run is on B, A drains, rollout exits 0 with its table. It returns
// the upgrade's run.
func rolledOut(t *testing.T) (*e2e.Env, client.WorkflowRun) {
	// A reimage of 10 s: a rack lasts long enough for the rollout to meet
	// one running, and the rollback another.
	timings := lab.FastTimings()
	timings.Reimage = model.Duration(10 * time.Second)
	env := e2e.Start(t, "../../examples/four-rack.yaml", e2e.Options{
		Drainage:    2 * time.Second,
		Timings:     timings,
		Mutate:      func(inv *model.Inventory) { e2e.KeepComputes(inv, 1, nil) }, // four racks of one compute
		StartWorker: func(e *e2e.Env) { startSiteWorker(e); startBuild(e, "A"); makeCurrent(e, "A") },
	})
	env.StartMonitor()
	ctx := env.Context(15 * time.Minute)
	env.KeysOnEveryNode(ctx)
	bmcKeys := keyset.Spec{Name: "bmc-oncall", Kind: keyset.KindBMC, Role: keyset.Operator, Expiration: time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second),
		Accounts: []keyset.Account{{Name: "alice", PasswordSecretRef: keyset.SecretRef{Namespace: "rackroll", Name: "bmc-alice", Key: "password"}}}}
	require.NoError(t, env.Update(ctx, api.ClusterID(env.Cluster), api.UpdateKeysetCreate, &keyset.Keyset{}, api.KeysetRequest{Keyset: bmcKeys, By: "test"}))
	starter(env, "keyset", "apply", "--cluster", env.Cluster, "--name", bmcKeys.Name)
	id := api.UpgradeID(env.Cluster)
	long := []string{id, api.ClusterID(env.Cluster), api.MonitorID(env.Cluster), api.KeysetNodesID(env.Cluster), api.KeysetID(env.Cluster, bmcKeys.Name)}
	for _, w := range long[1:] {
		env.Eventually(time.Minute, w+" on A", func() bool { b, _, _ := onBuild(env, w); return b == "A" })
	}
	logHistory(env, id)
	zero := 0
	run := env.StartUpgradeWith(ctx, model.UpdateStrategy{WaitTimeMinutes: &zero})
	env.Eventually(8*time.Minute, "rack1 running", func() bool {
		st, ok := env.UpgradeStatus(ctx)
		return ok && st.Phase == api.PhaseCompute && st.Racks[0].State == api.StateRunning
	})

	startBuild(env, "B")
	polled(env, "B")
	out, stderr, code := starterAt(t, env.Server.Address, env.Dir, 6*time.Minute, "self-upgrade", "rollout", "--build", "B", "--wait", "4m", "--drain-wait", "3m")
	t.Logf("rollout:\n%s%s", out, stderr)
	require.Zero(t, code, "rollout exits 0")
	require.Contains(t, out, "every long run of every cluster is on rackroll:B")
	require.Contains(t, out, "build A drained: its workers may go")
	final := out[strings.LastIndex(out, "RUN "):]
	for _, w := range long {
		require.Regexp(t, w+` +(running|completed) +rackroll:B +pinned`, final, "the final table")
	}
	st, _ := env.UpgradeStatus(ctx)
	require.Equal(t, api.StateSucceeded, st.Racks[0].State, "rack1 finished on A before the move")
	require.NotEqual(t, model.ClusterUpdatePaused, st.DetailedStatus, "no pause")
	return env, run
}

// finished checks the upgrade's end: done on build want, every rack
// succeeded without a pause, rack1's server upgraded on A, every server
// at the target, `starter lab check` clean. It returns the builds the
// compute servers' workflows ran on.
func finished(t *testing.T, env *e2e.Env, run client.WorkflowRun, want string) map[string]bool {
	var st api.UpgradeStatus
	require.NoError(t, run.Get(env.Context(10*time.Minute), &st), "the upgrade, followed across its moves")
	require.Equal(t, api.PhaseDone, st.Phase)
	b, _, _ := onBuild(env, api.UpgradeID(env.Cluster))
	require.Equal(t, want, b, "it finished on %s", want)
	for _, r := range st.Racks {
		require.Equal(t, api.StateSucceeded, r.State, r.Name)
		require.Nil(t, r.ContinuedAt, "%s: never paused", r.Name)
	}
	on := map[string]bool{}
	for _, ref := range env.Inventory.Servers() {
		if ref.Server.Role == model.RoleCompute {
			build := ranOn(env, api.ServerUpgradeID(env.Cluster, ref.Server.Name))
			on[build] = true
			if ref.Rack == "rack1" {
				require.Equal(t, "A", build, "rack1's server")
			}
		}
	}
	for _, bm := range env.State().Cluster.BMMs {
		if !bm.HasRole(model.RoleKCPSpare) {
			require.Equal(t, "4.2.0", bm.RuntimeVersion, bm.Name)
		}
	}
	site, err := invariants.SiteFromInventory(env.Inventory)
	require.NoError(t, err)
	require.Empty(t, invariants.Check(env.Events(), invariants.WithUpgrade(site, st)), "starter lab check: violations after the upgrade")
	return on
}

// Issue 51's rollout of a release during a default upgrade, on the server
// (rolledOut): the upgrade finishes on B, its racks after rack1 there.
func TestE2ERolloutDuringADefaultUpgrade(t *testing.T) {
	t.Parallel()
	env, run := rolledOut(t)
	on := finished(t, env, run, "B")
	require.True(t, on["B"], "the racks after rack1 ran on B")
}

// The same, then, while a later rack runs on B, `rollback`: the upgrade
// moves back to A at the next rack boundary and finishes there; B drains.
func TestE2ERolloutAndRollbackDuringADefaultUpgrade(t *testing.T) {
	t.Parallel()
	env, run := rolledOut(t)
	ctx := env.Context(10 * time.Minute)
	// Rollback while a rack after rack1 runs on B.
	env.Eventually(3*time.Minute, "a rack running on B", func() bool {
		st, ok := env.UpgradeStatus(ctx)
		return ok && st.CurrentRun != "" && st.Racks[3].State == api.StatePending
	})
	out, stderr, code := starterAt(t, env.Server.Address, env.Dir, 6*time.Minute, "self-upgrade", "rollback", "--wait", "4m", "--drain-wait", "3m")
	t.Logf("rollback:\n%s%s", out, stderr)
	require.Zero(t, code, "rollback exits 0")
	require.Contains(t, out, "build B drained: its workers may go")

	on := finished(t, env, run, "A")
	require.True(t, on["B"], "a rack ran on B between the rollout and the rollback")
}
