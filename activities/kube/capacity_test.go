package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func withAllocatable(n *corev1.Node, cpu string) *corev1.Node {
	n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("64Gi")}
	return n
}

func requesting(cpu string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers = []corev1.Container{{Name: "main", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("1Gi")}}}}
	}
}

// The activity reads requests, allocatable, readiness, cordons, taints
// and owners from the API as the guard needs them.
func TestCheckCapacityReadsTheCluster(t *testing.T) {
	cordoned := withAllocatable(fakeNode("c", corev1.ConditionTrue, ""), "100")
	cordoned.Spec.Unschedulable = true
	tainted := withAllocatable(fakeNode("m", corev1.ConditionTrue, ""), "100")
	tainted.Spec.Taints = []corev1.Taint{{Key: "rackroll.io/platform", Effect: corev1.TaintEffectNoSchedule}}
	ds := fakePod("ds", "a", requesting("50"))
	ds.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "agent", Controller: new(true)}}
	a, _ := fastActs(
		withAllocatable(fakeNode("a", corev1.ConditionTrue, ""), "10"),
		withAllocatable(fakeNode("b", corev1.ConditionTrue, ""), "10"),
		withAllocatable(fakeNode("down", corev1.ConditionUnknown, ""), "100"),
		cordoned, tainted, ds,
		fakePod("app-0", "a", requesting("6")), fakePod("app-1", "a", requesting("3")),
		fakePod("vm-0", "a", func(p *corev1.Pod) { requesting("40")(p); vm("Running", true)(p) }),
		fakePod("busy", "b", requesting("5")),
	)
	r, err := a.CheckCapacity(bg, CapacityInput{Nodes: []string{"a"}})
	require.NoError(t, err)
	require.Equal(t, 2, r.Evicted, "the DaemonSet pod and the VM stay")
	require.Equal(t, int64(9000), r.Demand.MilliCPU)
	require.Equal(t, int64(5000), r.Free.MilliCPU, "only b takes pods: down, cordoned and tainted do not")
	require.Equal(t, []string{"t/app-0"}, r.Pending)

	_, err = a.CheckCapacity(bg, CapacityInput{})
	typ, nonRetryable := appErrType(err)
	require.Equal(t, ErrInvalidInput, typ)
	require.True(t, nonRetryable)
}
