package capacity

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

const gi = int64(1) << 30

func node(name string, cpu int64, taints ...corev1.Taint) Node {
	return Node{Name: name, Allocatable: Resources{cpu * 1000, 64 * gi}, Schedulable: true, Taints: taints}
}

func pod(name, on string, cpu int64) Pod {
	return Pod{Name: "tenant/" + name, Node: on, Requests: Resources{cpu * 1000, gi}}
}

func TestCapacityFitsWhenTheStayingNodesCanTakeThePods(t *testing.T) {
	nodes := []Node{node("a", 10), node("b", 10), node("c", 10)}
	pods := []Pod{pod("a1", "a", 4), pod("a2", "a", 4), pod("b1", "b", 3), pod("c1", "c", 5)}
	r := Check([]string{"a"}, nodes, pods)
	require.True(t, r.Fits(), r.Describe("rack1"))
	require.Equal(t, Resources{8000, 2 * gi}, r.Demand)
	require.Equal(t, Resources{12000, 126 * gi}, r.Free, "b has 7 free, c 5")
	require.Equal(t, 2, r.Evicted)
}

// Aggregate free room is not enough: a pod too large for any one node's
// remainder is Pending, and is named.
func TestCapacityNamesThePodsLeftPending(t *testing.T) {
	nodes := []Node{node("a", 10), node("b", 10), node("c", 10)}
	pods := []Pod{pod("a1", "a", 6), pod("a2", "a", 3), pod("b1", "b", 5), pod("c1", "c", 5)}
	r := Check([]string{"a"}, nodes, pods)
	require.False(t, r.Fits())
	require.Equal(t, []string{"tenant/a1"}, r.Pending, "6 CPU fits on neither b nor c (5 free each); a2 does")
	require.Equal(t, Resources{6000, gi}, r.Shortfall)
	msg := r.Describe("rack a")
	for _, want := range []string{"rack a", "short by 6.0 CPU, 1.0 GiB", "1 pods would be left Pending: tenant/a1"} {
		require.Contains(t, msg, want)
	}
}

// Cordoned or NotReady nodes, nodes of the batch, and nodes whose taints
// the pod does not tolerate take nothing; DaemonSet, mirror, VM and
// finished pods do not move.
func TestCapacityExcludesWhatDoesNotMoveAndWhereNothingLands(t *testing.T) {
	cordoned := node("cordoned", 100)
	cordoned.Schedulable = false
	platform := corev1.Taint{Key: "rackroll.io/platform", Effect: corev1.TaintEffectNoSchedule}
	nodes := []Node{node("a", 10), node("b", 10), cordoned, node("mgmt", 100, platform), node("soft", 0, corev1.Taint{Key: "x", Effect: corev1.TaintEffectPreferNoSchedule})}
	ds, mirror, vm, done := pod("ds", "a", 50), pod("mirror", "a", 50), pod("vm", "a", 50), pod("done", "a", 50)
	ds.DaemonSet, mirror.Mirror, vm.VM, done.Finished = true, true, true, true
	tolerant := pod("tolerant", "a", 20)
	tolerant.Tolerations = []corev1.Toleration{{Key: "rackroll.io/platform", Operator: corev1.TolerationOpExists}}
	pods := []Pod{ds, mirror, vm, done, pod("a1", "a", 20), tolerant}
	r := Check([]string{"a", "b"}, nodes, pods)
	require.Equal(t, 2, r.Evicted)
	require.Equal(t, []string{"tenant/a1"}, r.Pending, "only mgmt has room, and a1 does not tolerate it")
	require.True(t, strings.HasPrefix(r.Describe("x"), "x: its 2 evicted pods request 40.0 CPU"))
}
