package kubesim

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
