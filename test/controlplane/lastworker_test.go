package controlplane_test

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Issue 34, the worker never drains itself, remediation's side: rackroll's
// only worker runs on a compute whose root filesystem stays read-only
// through its reprovision. The ladder gives up and marks it Unhealthy, but
// its removal drains first, and the drain keeps the last Ready worker
// (internal/workerguard, the upgrade's rule): the node is not deleted, the
// server not powered off, and the outcome names the pod and the node.
func TestE2ERemediationNeverRemovesTheLastWorker(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: e2e.FastRemediation})
	const c = "rack1-c1"
	ctx := env.Context(3 * time.Minute)
	env.PlaceWorker(ctx, "rackroll-worker-a", c)
	env.StartMonitor()
	// Sticky: the lab's node faults outlive a reimage.
	require.NoError(t, env.Lab.SetFault(c, faults.ReadOnlyRootFS, 0, false))

	rs := env.Remediation(ctx, c)
	for _, want := range []string{"reprovision failed",
		"node not removed: drain of node rack1-c1 refused: pod rackroll/rackroll-worker-a on node rack1-c1 is the last Ready rackroll worker",
		"power-off failed: not powered off"} {
		require.Contains(t, rs.Outcome, want)
	}
	b := env.BMM(c)
	require.True(t, b.MarkedUnhealthy(), "marked all the same")
	require.Equal(t, model.PowerOn, b.PowerState)
	_, err := env.Clientset(ctx).CoreV1().Nodes().Get(ctx, c, metav1.GetOptions{})
	require.NoError(t, err, "the node stays")
	require.True(t, env.WorkerReady(ctx, "rackroll-worker-a"), "the worker still runs")
	require.Zero(t, env.Lab.Events.Count(events.NodeDeleted, c))
	require.Zero(t, env.Lab.Events.Count(events.PowerOff, c))
	require.Empty(t, env.State().Leases)
}
