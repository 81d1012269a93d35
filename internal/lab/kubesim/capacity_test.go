package kubesim

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The simulator's scheduler counts requests: with both compute nodes 60 %
// full, one replacement from compute0 fits on compute1 (90 %), the second
// (120 %) stays Pending. Platform nodes are tainted and take none.
func TestSchedulerCountsRequestsAndTaints(t *testing.T) {
	s := startSite(t, Options{Workloads: true, Drain: 100 * time.Millisecond}, "compute~0.6", "compute~0.6", "management:a")
	c0, c1, m := s.prefix+"-compute0", s.prefix+"-compute1", s.prefix+"-management2"
	if taints := s.node(t, m).Spec.Taints; len(taints) != 1 || taints[0].Key != platformTaint.Key {
		t.Fatalf("management node taints = %v", taints)
	}
	if len(s.node(t, c0).Spec.Taints) != 0 {
		t.Fatal("a compute node is tainted")
	}
	cordon(t, s, c0, true)
	rs := "app-" + c0
	for i := range appReplicas {
		name := fmt.Sprintf("%s-%d", rs, i)
		eventually(t, "evict "+name, func() (bool, string) { err := evict(s, name); return err == nil, fmt.Sprint(err) })
		if i == 0 {
			eventually(t, "the first replacement lands on "+c1, func() (bool, string) {
				on, pending := placement(t, s, rs)
				return on[c1] == 1 && pending == 0, fmt.Sprint(on, pending)
			})
		}
	}
	eventually(t, "the second replacement stays Pending", func() (bool, string) {
		on, pending := placement(t, s, rs)
		return on[c1] == 1 && pending == 1 && on[m] == 0, fmt.Sprint(on, pending)
	})
}

func placement(t *testing.T, s *testSite, rs string) (map[string]int, int) {
	pods, err := s.client.CoreV1().Pods(s.ns).List(bg, metav1.ListOptions{LabelSelector: labelApp + "=" + rs})
	if err != nil {
		t.Fatal(err)
	}
	on, pending := map[string]int{}, 0
	for _, p := range pods.Items {
		switch {
		case p.DeletionTimestamp != nil:
		case p.Spec.NodeName == "" && p.Status.Phase == corev1.PodPending:
			pending++
		default:
			on[p.Spec.NodeName]++
		}
	}
	return on, pending
}

// The simulator's scheduler filters as kube-scheduler does: a
// nodeSelector's pods land only on the nodes it matches, and no pod lands
// on a node whose NoSchedule taint it does not tolerate — never kinder
// than a real site to the capacity guard's verdict.
func TestSchedulerHonoursSelectorsAndTaints(t *testing.T) {
	s := startSite(t, Options{Workloads: true, Drain: 100 * time.Millisecond}, "compute", "compute", "compute")
	c0, c1, c2 := s.prefix+"-compute0", s.prefix+"-compute1", s.prefix+"-compute2"
	patch := `{"spec":{"taints":[{"key":"dedicated","value":"db","effect":"NoSchedule"}]}}`
	if _, err := s.client.CoreV1().Nodes().Patch(bg, c2, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the sim sees the taint", func() (bool, string) {
		n, err := s.nodes.Get(c2)
		return err == nil && len(n.Spec.Taints) == 1, fmt.Sprint(err)
	})
	rs := replicaSet(s.ns, "pinned", nil)
	rs.Spec.Template.Spec.NodeSelector = map[string]string{LabelHostname: c1}
	if _, err := s.client.AppsV1().ReplicaSets(s.ns).Create(bg, rs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "both pinned pods on "+c1, func() (bool, string) {
		on, pending := placement(t, s, "pinned")
		return on[c1] == appReplicas && pending == 0, fmt.Sprint(on, pending)
	})
	cordon(t, s, c1, true)
	name := "pinned-0"
	eventually(t, "evict "+name, func() (bool, string) { err := evict(s, name); return err == nil, fmt.Sprint(err) })
	eventually(t, "its replacement stays Pending: only the cordoned node matches", func() (bool, string) {
		on, pending := placement(t, s, "pinned")
		return pending == 1 && on[c0] == 0 && on[c2] == 0, fmt.Sprint(on, pending)
	})
	cordon(t, s, c0, true)
	rs0 := "app-" + c0
	eventually(t, "evict "+rs0+"-0", func() (bool, string) { err := evict(s, rs0+"-0"); return err == nil, fmt.Sprint(err) })
	eventually(t, "no replacement on the tainted node", func() (bool, string) {
		on, pending := placement(t, s, rs0)
		return pending == 1 && on[c2] == 0, fmt.Sprint(on, pending)
	})
}
