package upgrade_test

import (
	"context"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubectl/pkg/util/podutils"
)

// Issue 34, the worker never drains itself: rackroll's only worker pod
// runs on rack1-c1, a compute of the first rack drained. The upgrade
// drains the rest of that node but keeps the worker, and at the drain's
// limit fails the server naming the pod and node instead of reimaging the
// worker away; every other server reaches the target. With a second
// worker Ready on a management server, the same upgrade run again drains
// rack1-c1, worker and all, and finishes it.
func TestE2EUpgradeNeverEvictsTheLastWorker(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		inv.Timeouts = &model.TimeoutsSpec{Drain: durationOf(20 * time.Second)}
		inv.Lab = []byte(`{"timings": {"boot": "3s", "reimage": "5s", "powerTransition": "1s", "drain": "1s"}}`)
		// rack1-c1 under the worker, rack1-c2 going on beside it (the canary: one failure is no pattern), a rack after.
		e2e.KeepComputes(inv, 2, nil)
	}})
	ctx := env.Context(10 * time.Minute)
	cs := env.Clientset(ctx)
	worker := func(name, node string) { env.PlaceWorker(ctx, name, node) }
	worker("rackroll-worker-a", "rack1-c1")
	upgrade := func(ctx context.Context) api.UpgradeStatus {
		var st api.UpgradeStatus
		require.NoError(t, env.StartUpgradeInput(ctx, api.UpgradeInput{TargetVersion: "4.2.0", UpdateStrategy: lenientRack()}).Get(ctx, &st))
		return st
	}

	st := upgrade(ctx)
	failed := failedServers(st)
	require.Len(t, failed, 1, "%+v", st.Racks)
	require.Equal(t, "rack1-c1", failed[0].Name)
	for _, want := range []string{"drain of rack1-c1 failed", "pod rackroll/rackroll-worker-a on node rack1-c1", "last Ready rackroll worker"} {
		require.Contains(t, failed[0].Error, want)
	}
	p, err := cs.CoreV1().Pods("rackroll").Get(ctx, "rackroll-worker-a", metav1.GetOptions{})
	require.NoError(t, err, "the worker was not evicted")
	require.Nil(t, p.DeletionTimestamp, "the worker was not evicted")
	require.True(t, podutils.IsPodReady(p), "the worker still runs")
	require.Positive(t, env.Lab.Events.Count(events.Evict, "rack1-c1"), "the rest of rack1-c1 was drained")
	require.Zero(t, env.Lab.Events.Count(events.ReimageStart, "rack1-c1"), "rack1-c1 was not reimaged under its worker")
	require.Equal(t, "4.2.0", env.BMM("rack1-c2").RuntimeVersion, "the rest went on")

	// A second worker where deploy/ puts them: a management server.
	mgmt := ""
	for _, n := range []string{"rack2-mgmt1", "rack2-mgmt2", "rack1-mgmt1", "rack1-mgmt2"} {
		if b := env.BMM(n); mgmt == "" && b.HasRole(model.RoleManagement) && b.ReadyState == model.ReadyTrue {
			mgmt = b.NodeName
		}
	}
	require.NotEmpty(t, mgmt, "a Ready management server")
	worker("rackroll-worker-b", mgmt)
	st = upgrade(ctx)
	require.Empty(t, failedServers(st), "%+v", st.Racks)
	require.Equal(t, "4.2.0", env.BMM("rack1-c1").RuntimeVersion, "rack1-c1 drained, worker and all")
	_, err = cs.CoreV1().Pods("rackroll").Get(ctx, "rackroll-worker-a", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the worker on rack1-c1 was evicted once another was Ready: %v", err)
}
