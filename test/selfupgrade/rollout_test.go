package selfupgrade_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Issue 51, rollout and rollback as one command each, on the server: the
// ledger and the monitor of a lab cluster run on build A, B's workers
// poll; `starter self-upgrade rollout --build B` makes B current, wakes
// the runs until each is on B, waits for A to drain and scales A's
// Kubernetes Deployment (in the lab's apiserver) to 0; `status` shows the
// deployment's versions and each run's build; `rollback` makes A current
// again, the runs go back and B drains.
func TestE2ERolloutAndRollbackMoveEveryLongRun(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{
		Drainage:    2 * time.Second,
		StartWorker: func(e *e2e.Env) { startBuild(e, "A"); makeCurrent(e, "A") },
	})
	env.StartMonitor()
	ledger, monitor := api.ClusterID(env.Cluster), api.MonitorID(env.Cluster)
	onlyOn := func(build string) {
		for _, w := range []string{ledger, monitor} {
			env.Eventually(time.Minute, w+" on "+build, func() bool { b, _, _ := onBuild(env, w); return b == build })
			_, behavior, _ := onBuild(env, w)
			require.Equal(t, enumspb.VERSIONING_BEHAVIOR_PINNED.String(), behavior, "%s pinned to %s", w, build)
		}
	}
	onlyOn("A")
	startBuild(env, "B")
	polled(env, "B")
	ctx := env.Context(10 * time.Minute)
	kc := env.Clientset(ctx)
	_, err := kc.AppsV1().Deployments("default").Create(ctx, workers("rackroll-worker-a", "A"), metav1.CreateOptions{})
	require.NoError(t, err)

	out, stderr, code := starterAt(t, env.Server.Address, env.Dir, 6*time.Minute, "self-upgrade", "rollout", "--build", "B",
		"--wait", "3m", "--drain-wait", "2m", "--scale-down", "default/rackroll-worker-a", "--kubeconfig", env.Inventory.Kubernetes.Kubeconfig)
	t.Logf("rollout:\n%s%s", out, stderr)
	require.Zero(t, code, "rollout exits 0")
	require.Contains(t, out, "deployment rackroll: build B is current (was A)")
	require.Contains(t, out, "every long run of every cluster is on rackroll:B")
	require.Contains(t, out, "build A drained: Deployment default/rackroll-worker-a scaled to 0 replicas")
	final := out[strings.LastIndex(out, "RUN "):]
	for _, w := range []string{ledger, monitor} {
		require.Regexp(t, w+` +running +rackroll:B +pinned`, final, "the final table")
	}
	onlyOn("B")
	d, err := kc.AppsV1().Deployments("default").Get(ctx, "rackroll-worker-a", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, int32(0), *d.Spec.Replicas, "A's workers scaled down")

	st := starter(env, "self-upgrade", "status")
	require.Contains(t, st, "deployment rackroll: current B\n")
	require.Regexp(t, `(?m)^B +current `, st)
	require.Regexp(t, `(?m)^A +drained `, st)
	require.Regexp(t, ledger+` +running +rackroll:B +pinned`, st)

	// Rollback: A's workers still poll (the lab has no controller to stop
	// them); A was current before B, so it is the default.
	out, stderr, code = starterAt(t, env.Server.Address, env.Dir, 6*time.Minute, "self-upgrade", "rollback", "--wait", "3m", "--drain-wait", "2m")
	t.Logf("rollback:\n%s%s", out, stderr)
	require.Zero(t, code, "rollback exits 0")
	require.Contains(t, out, "deployment rackroll: build A is current (was B)")
	require.Contains(t, out, "build B drained: its workers may go")
	final = out[strings.LastIndex(out, "RUN "):]
	for _, w := range []string{ledger, monitor} {
		require.Regexp(t, w+` +running +rackroll:A +pinned`, final)
	}
	onlyOn("A")
}

// polled waits until build id's workers have polled: the version exists.
func polled(e *e2e.Env, id string) {
	e.T.Helper()
	h := e.Client.WorkerDeploymentClient().GetHandle(deployment)
	e.Eventually(time.Minute, "version "+id+" polled", func() bool {
		_, err := h.DescribeVersion(context.Background(), client.WorkerDeploymentDescribeVersionOptions{BuildID: id})
		return err == nil
	})
}

// workers is a build's worker Deployment as deploy/versioned names and
// labels it (the lab's apiserver has no controller: no pod runs).
func workers(name, build string) *appsv1.Deployment {
	replicas := int32(2)
	labels := map[string]string{"app.kubernetes.io/name": "rackroll-worker", "rackroll.io/build": build}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "worker", Image: "rackroll:" + strings.ToLower(build)}}}}}}
}
