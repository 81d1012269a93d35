package kubesim

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func pod(name string, ready, terminating bool) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}
	if terminating {
		p.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	}
	return p
}

func TestComputePDBStatus(t *testing.T) {
	now := time.Unix(1000, 0)
	maxU1 := policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.FromInt32(1))}
	minA2 := policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(2))}
	minA50 := policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromString("50%"))}
	cases := []struct {
		name                             string
		spec                             policyv1.PodDisruptionBudgetSpec
		disrupted                        map[string]metav1.Time
		pods                             []*corev1.Pod
		scale                            int32
		blocked                          bool
		allowed, healthy, desired, expct int32
		recheck                          time.Duration
	}{
		{"maxUnavailable, all healthy", maxU1, nil, []*corev1.Pod{pod("a", true, false), pod("b", true, false)}, 2, false, 1, 2, 1, 2, 0},
		{"one terminating", maxU1, nil, []*corev1.Pod{pod("a", false, true), pod("b", true, false)}, 2, false, 0, 1, 1, 2, 0},
		{"replacement not ready", maxU1, nil, []*corev1.Pod{pod("b", true, false), pod("c", false, false)}, 2, false, 0, 1, 1, 2, 0},
		{"recent disruption not counted", maxU1, map[string]metav1.Time{"a": {Time: now.Add(-time.Minute)}},
			[]*corev1.Pod{pod("a", true, false), pod("b", true, false)}, 2, false, 0, 1, 1, 2, time.Minute},
		{"old disruption expires", maxU1, map[string]metav1.Time{"a": {Time: now.Add(-3 * time.Minute)}},
			[]*corev1.Pod{pod("a", true, false), pod("b", true, false)}, 2, false, 1, 2, 1, 2, 0},
		{"minAvailable int counts pods", minA2, nil, []*corev1.Pod{pod("a", true, false), pod("b", true, false), pod("c", true, false)}, 9, false, 1, 3, 2, 3, 0},
		{"minAvailable percent uses scale", minA50, nil, []*corev1.Pod{pod("a", true, false), pod("b", true, false), pod("c", true, false)}, 4, false, 1, 3, 2, 4, 0},
		{"pdb-blocks", maxU1, nil, []*corev1.Pod{pod("a", true, false), pod("b", true, false)}, 2, true, 0, 2, 2, 2, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Generation: 3}, Spec: c.spec}
			pdb.Status.DisruptedPods = c.disrupted
			st, recheck := computePDBStatus(pdb, c.pods, c.scale, c.blocked, now)
			if st.DisruptionsAllowed != c.allowed || st.CurrentHealthy != c.healthy || st.DesiredHealthy != c.desired || st.ExpectedPods != c.expct {
				t.Fatalf("got allowed %d healthy %d desired %d expected %d", st.DisruptionsAllowed, st.CurrentHealthy, st.DesiredHealthy, st.ExpectedPods)
			}
			if st.ObservedGeneration != 3 || recheck != c.recheck {
				t.Fatalf("observedGeneration %d, recheck %v", st.ObservedGeneration, recheck)
			}
			wantCond := metav1.ConditionTrue
			if c.allowed == 0 {
				wantCond = metav1.ConditionFalse
			}
			if len(st.Conditions) != 1 || st.Conditions[0].Status != wantCond {
				t.Fatalf("conditions %+v", st.Conditions)
			}
			if !pdbStatusEqual(st, st) {
				t.Fatal("status not equal to itself")
			}
		})
	}
}
