package selfupgrade_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Temporal's migration from unversioned to versioned workers, by the one
// command: the ledger, the monitor and the keyset nodes run waiting for
// its expiry were started by an unversioned worker; build B's versioned
// workers poll; `starter self-upgrade rollout --build B` makes B current
// and wakes the runs, and each one's next workflow task goes to B, which
// replays its history and keeps it from then on (Pinned). No build drains:
// the unversioned worker may go once no run is left on it.
func TestE2ERolloutMigratesUnversionedRuns(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Drainage: 2 * time.Second})
	env.StartMonitor()
	ctx := env.Context(8 * time.Minute)
	env.KeysOnEveryNode(ctx)
	long := []string{api.ClusterID(env.Cluster), api.MonitorID(env.Cluster), api.KeysetNodesID(env.Cluster)}
	for _, w := range long {
		env.Eventually(time.Minute, w+" running unversioned", func() bool {
			return strings.Contains(starter(env, "self-upgrade", "status", "--cluster", env.Cluster), w)
		})
	}
	startBuild(env, "B")
	polled(env, "B")
	out, stderr, code := starterAt(t, env.Server.Address, env.Dir, 6*time.Minute, "self-upgrade", "rollout", "--build", "B", "--wait", "4m")
	t.Logf("rollout:\n%s%s", out, stderr)
	require.Zero(t, code, "rollout exits 0")
	require.Contains(t, out, "unversioned workers were current before: no build drains")
	final := out[strings.LastIndex(out, "RUN "):]
	for _, w := range long {
		require.Regexp(t, w+` +running +rackroll:B +pinned`, final, "the final table")
	}
	// The ledger on B still answers as the one it was.
	require.Equal(t, env.Cluster, env.State().Cluster.Name)
}
