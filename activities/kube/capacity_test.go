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

// requesting is a ReplicaSet's pod requesting cpu.
func requesting(cpu string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "app", Controller: new(true)}}
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
	ds.OwnerReferences = nil
	ds.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "agent", Controller: new(true)}}
	a, _ := fastActs(
		withAllocatable(fakeNode("a", corev1.ConditionTrue, ""), "10"),
		withAllocatable(fakeNode("b", corev1.ConditionTrue, ""), "10"),
		withAllocatable(fakeNode("down", corev1.ConditionUnknown, ""), "100"),
		cordoned, tainted, ds,
		fakePod("app-0", "a", requesting("6")), fakePod("app-1", "a", requesting("3")),
		fakePod("vm-0", "a", func(p *corev1.Pod) { requesting("40")(p); p.OwnerReferences = nil; vm("Running", true)(p) }),
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

// The constraints come from the pod's spec as the scheduler reads it: the
// pinned pod is Pending, named with its selector; a bare pod and one on a
// local volume are reported as pods that cannot move.
func TestCheckCapacityReadsConstraintsAndVolumes(t *testing.T) {
	a1 := withAllocatable(fakeNode("a", corev1.ConditionTrue, ""), "10")
	a1.Labels = map[string]string{"rackroll.io/rack": "rack1"}
	claim := func(name string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			requesting("1")(p)
			p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}}
		}
	}
	pvc := func(name, pv string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "t"}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: pv}}
	}
	local := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "local-a"}, Spec: corev1.PersistentVolumeSpec{
		PersistentVolumeSource: corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/disk"}}}}
	shared := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "nfs"}, Spec: corev1.PersistentVolumeSpec{
		PersistentVolumeSource: corev1.PersistentVolumeSource{NFS: &corev1.NFSVolumeSource{Server: "nfs", Path: "/"}}}}
	a, _ := fastActs(a1, withAllocatable(fakeNode("b", corev1.ConditionTrue, ""), "10"),
		fakePod("pinned", "a", func(p *corev1.Pod) {
			requesting("1")(p)
			p.Spec.NodeSelector = map[string]string{"rackroll.io/rack": "rack1"}
		}),
		fakePod("bare", "a", nil),
		fakePod("db-0", "a", claim("db")), pvc("db", "local-a"), local,
		fakePod("web-0", "a", claim("web")), pvc("web", "nfs"), shared,
	)
	r, err := a.CheckCapacity(bg, CapacityInput{Nodes: []string{"a"}})
	require.NoError(t, err)
	require.False(t, r.Fits())
	require.Equal(t, []string{"t/pinned"}, r.Pending)
	require.Equal(t, []string{"t/pinned: nodeSelector rackroll.io/rack=rack1 matches no node that stays up"}, r.Reasons)
	require.Equal(t, []string{"t/bare: no controller: the drain deletes it and nothing recreates it",
		"t/db-0: its volume data (claim db, volume local-a) is local storage of its node"}, r.Unmovable)
	require.Equal(t, 2, r.Evicted, "pinned and web-0 (on shared storage) move")
}
