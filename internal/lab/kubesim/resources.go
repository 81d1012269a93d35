package kubesim

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// nodeResources is a bare-metal server's capacity; the simulator's
// scheduler counts tenant pods' requests against it.
func nodeResources() corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("96"),
		corev1.ResourceMemory: resource.MustParse("512Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
}

// resources are CPU millicores and memory bytes.
type resources struct{ milliCPU, memory int64 }

func (r resources) add(o resources) resources {
	return resources{r.milliCPU + o.milliCPU, r.memory + o.memory}
}

func (r resources) within(l corev1.ResourceList) bool {
	return r.milliCPU <= l.Cpu().MilliValue() && r.memory <= l.Memory().Value()
}

// requestsOf sums what a pod's containers request.
func requestsOf(spec corev1.PodSpec) resources {
	var r resources
	for _, c := range spec.Containers {
		r = r.add(resources{c.Resources.Requests.Cpu().MilliValue(), c.Resources.Requests.Memory().Value()})
	}
	return r
}

// tenantRequests is what each app pod of a node with tenant load requests:
// its share of load (0–1) of the node's allocatable.
func tenantRequests(load float64) corev1.ResourceList {
	if load <= 0 {
		return nil
	}
	n := nodeResources()
	share := load / appReplicas
	return corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(float64(n.Cpu().MilliValue())*share), resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(int64(float64(n.Memory().Value())*share), resource.BinarySI),
	}
}

// platformTaint keeps tenant pods off the platform's servers (KCP, spare,
// management), as a site's would.
var platformTaint = corev1.Taint{Key: "rackroll.io/platform", Effect: corev1.TaintEffectNoSchedule}
