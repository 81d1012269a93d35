package selfupgrade_test

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/devserver"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
)

func execution(id string) *common.WorkflowExecution { return &common.WorkflowExecution{WorkflowId: id} }

// The ledger and the health monitor start on build A and, once B is made
// current, move to B at their safe points — the monitor between rounds,
// the ledger on its next workflow task once its handlers finished — by
// continuing as new, with their state. A then has no open run and reports
// Drained. The built code's first meeting with a server: the SDK test
// environment only imitates the flag the server sets.
func TestE2ELedgerAndMonitorMoveToTheCurrentBuild(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{
		Versioning: &devserver.VersioningOptions{Drainage: 2 * time.Second},
		// The subject is the two long runs, not the servers.
		Mutate:      func(inv *model.Inventory) { e2e.KeepComputes(inv, 1, nil) },
		StartWorker: func(e *e2e.Env) { startBuild(e, "A"); makeCurrent(e, "A") },
	})
	env.StartMonitor()
	ledger, monitor := api.ClusterID(env.Cluster), api.MonitorID(env.Cluster)
	logHistory(env, ledger)
	logHistory(env, monitor)
	pinned := enumspb.VERSIONING_BEHAVIOR_PINNED.String()
	runs := map[string]string{}
	for _, id := range []string{ledger, monitor} {
		env.Eventually(time.Minute, id+" on A", func() bool { b, _, _ := onBuild(env, id); return b == "A" })
		b, behavior, run := onBuild(env, id)
		require.Equal(t, "A", b, id)
		require.Equal(t, pinned, behavior, id)
		runs[id] = run
	}
	before := env.State()

	startBuild(env, "B")
	makeCurrent(env, "B")
	moved := func(id string) {
		env.Eventually(3*time.Minute, id+" moved to B", func() bool {
			b, _, run := onBuild(env, id)
			return b == "B" && run != runs[id]
		})
		_, behavior, _ := onBuild(env, id)
		require.Equal(t, pinned, behavior, "%s: pinned to B after its move", id)
	}
	// The monitor has a workflow task a round: it moves by itself.
	moved(monitor)
	// The idle ledger has none (the wake signal is designed, not built):
	// an Update, as any starter command sends, is one. Sent once the
	// monitor moved: the server tells a run of the new current build only
	// once the routing change reached its task queue, and a task started
	// before that says nothing, as the first try of this test found.
	env.Register()
	moved(ledger)
	after := env.State()
	require.Equal(t, before.Cluster.Name, after.Cluster.Name)
	require.Equal(t, len(before.Cluster.BMMs), len(after.Cluster.BMMs), "the ledger carried its BMMs")
	for i, b := range before.Cluster.BMMs {
		require.Equal(t, b.Name, after.Cluster.BMMs[i].Name)
		require.Equal(t, b.RuntimeVersion, after.Cluster.BMMs[i].RuntimeVersion, b.Name)
	}
	require.Equal(t, before.ActionSeq, after.ActionSeq, "the ledger carried its counters")
	drained(env, "A", time.Minute)
}
