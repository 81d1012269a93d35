package growth_test

import (
	"os/exec"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/worker/wiring"
	"github.com/stretchr/testify/require"
)

// Issue 50: one rack growing to two is interrupted once its first role
// change is made — the worker stopped, the operator's `replace-roles
// --wait` cut — and resumed by the same command on a new worker: it
// follows the re-placement still running, which continues from where the
// site stands and ends at the two-rack table.
func TestE2EGrowthInterruptedResumes(t *testing.T) {
	g := rackAndRegister(t, 2, []string{"rack2-mgmt1", "rack2-mgmt2", "rack2-c1"})
	env := g.env
	first := exec.CommandContext(g.ctx, g.starter, "cluster", "replace-roles", "--cluster", env.Cluster, "--wait")
	first.Env = e2e.StarterEnv(env.Server.Address, env.Dir)
	require.NoError(t, first.Start())
	env.Eventually(2*time.Minute, "the first role change made", func() bool { return env.BMM("rack2-mgmt1").HasRole(model.RoleKCPSpare) })
	env.Worker.Stop() // the ledger answers no query until a worker is back
	require.NoError(t, first.Process.Kill())
	_ = first.Wait()

	env.StartWorker(&wiring.Options{PollInterval: 200 * time.Millisecond, BMCPowerOnTimeout: 15 * time.Second})
	out := g.run("cluster", "replace-roles", "--cluster", env.Cluster, "--wait")
	t.Logf("the same command again:\n%s", out)
	g.atTheTable(t, 2)
}
