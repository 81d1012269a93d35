package upgrade_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/kubesim"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// Issue 34, capacity with scheduling constraints: rack1 (no canary, the
// whole rack one batch) is drained first and only rack2's computes stay
// up, with room to spare. Pods that rack2 cannot take by their spec — a
// nodeSelector only rack1 matches, a taint of rack2's they do not
// tolerate — pause the upgrade under Pause before rack1 is touched, naming
// the pods and the constraint (rack1's management servers match the
// selector but carry the platform taint).
func TestE2ECapacityHonoursSchedulingConstraints(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		arrange func(ctx context.Context, t *testing.T, cs kubernetes.Interface)
		want    []string
	}{
		{"nodeSelector", pinToRack1, []string{"tenant/pinned-0", "tenant/pinned-1", "nodeSelector rackroll.io/rack=rack1 matches only nodes that stay up with taints it does not tolerate (rackroll.io/platform:NoSchedule)"}},
		{"taint", taintRack2, []string{"tenant/app-rack1-c1-0", "no toleration for the taints of the nodes that stay up (dedicated=db:NoSchedule, rackroll.io/platform:NoSchedule)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
				inv.Lab = []byte(`{"timings": {"boot": "3s", "reimage": "5s", "powerTransition": "1s", "drain": "1s"}}`)
				// A compute a rack: the pause names pods by their spec, not by the room
				// (tenant pods request nothing), so one node each side proves the same.
				e2e.KeepComputes(inv, 1, nil)
			}})
			ctx := env.Context(10 * time.Minute)
			tc.arrange(ctx, t, env.Clientset(ctx))
			env.StartUpgradeWith(ctx, model.UpdateStrategy{CapacityPolicy: model.CapacityPause, WaitTimeMinutes: new(int), SystemicFailures: new(int)})
			st := env.AwaitPaused(ctx, 8*time.Minute, "the upgrade pauses before rack1")
			require.Contains(t, st.DetailedStatusMessage, "not enough room to drain rack1:")
			for _, want := range tc.want {
				require.Contains(t, st.DetailedStatusMessage, want)
			}
			require.Zero(t, computeCordons(env, "rack1"), "rack1's computes were not touched before the operator's word")
		})
	}
}

// pinToRack1 runs a tenant workload whose nodeSelector only rack1's nodes
// match (a ReplicaSet, as a Deployment makes; the lab's controller and
// scheduler place its pods by the selector) and waits until it runs there.
func pinToRack1(ctx context.Context, t *testing.T, cs kubernetes.Interface) {
	labels := map[string]string{"app": "pinned", model.LabelWorkload: kubesim.WorkloadApp}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "pinned", Namespace: kubesim.TenantNamespace},
		Spec: appsv1.ReplicaSetSpec{Replicas: new(int32(2)), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				NodeSelector: map[string]string{model.LabelRack: "rack1"},
				Containers:   []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}},
			}}},
	}
	_, err := cs.AppsV1().ReplicaSets(rs.Namespace).Create(ctx, rs, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		pods, err := cs.CoreV1().Pods(rs.Namespace).List(ctx, metav1.ListOptions{LabelSelector: "app=pinned"})
		placed := 0
		for _, p := range pods.Items {
			if strings.HasPrefix(p.Spec.NodeName, "rack1-") {
				placed++
			}
		}
		return err == nil && placed == 2
	}, time.Minute, 200*time.Millisecond, "the pinned pods run on rack1")
}

// taintRack2 taints rack2's computes with a taint no tenant pod tolerates.
func taintRack2(ctx context.Context, t *testing.T, cs kubernetes.Interface) {
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{
		LabelSelector: fmt.Sprintf("%s=rack2,%s=%s", model.LabelRack, model.LabelRole, model.RoleCompute)})
	require.NoError(t, err)
	require.NotEmpty(t, nodes.Items, "rack2's compute nodes")
	for _, n := range nodes.Items {
		patch := `{"spec":{"taints":[{"key":"dedicated","value":"db","effect":"NoSchedule"}]}}`
		_, err := cs.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		require.NoError(t, err)
	}
}
