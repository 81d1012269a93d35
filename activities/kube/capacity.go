package kube

import (
	"context"
	"fmt"

	"github.com/rackroll/rackroll/internal/capacity"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CapacityInput names the nodes a batch will drain together.
type CapacityInput struct {
	Nodes []string `json:"nodes"`
}

// CheckCapacity reads every node and pod once and judges whether the pods
// draining Nodes evicts can land on the nodes that stay up
// (capacity.Check). It changes nothing.
func (a *Activities) CheckCapacity(ctx context.Context, in CapacityInput) (capacity.Report, error) {
	if len(in.Nodes) == 0 {
		return capacity.Report{}, invalidInput("no nodes to check")
	}
	cs, err := a.client(ctx)
	if err != nil {
		return capacity.Report{}, err
	}
	// ResourceVersion "0": served from the apiserver's watch cache, a few
	// milliseconds behind at most, so a check before every drain costs the
	// control plane (and the upgrade's critical path) little.
	cached := metav1.ListOptions{ResourceVersion: "0"}
	nl, err := cs.CoreV1().Nodes().List(ctx, cached)
	if err != nil {
		return capacity.Report{}, Forbidden(fmt.Errorf("list nodes: %w", err))
	}
	pl, err := cs.CoreV1().Pods("").List(ctx, cached)
	if err != nil {
		return capacity.Report{}, Forbidden(fmt.Errorf("list pods: %w", err))
	}
	nodes := make([]capacity.Node, 0, len(nl.Items))
	for _, n := range nl.Items {
		nodes = append(nodes, capacityNode(n))
	}
	pods := make([]capacity.Pod, 0, len(pl.Items))
	for _, p := range pl.Items {
		pods = append(pods, capacityPod(p))
	}
	return capacity.Check(in.Nodes, nodes, pods), nil
}

func capacityNode(n corev1.Node) capacity.Node {
	out := capacity.Node{Name: n.Name, Schedulable: !n.Spec.Unschedulable && ready(n),
		Allocatable: capacity.Resources{MilliCPU: n.Status.Allocatable.Cpu().MilliValue(), Memory: n.Status.Allocatable.Memory().Value()}}
	for _, t := range n.Spec.Taints {
		out.Taints = append(out.Taints, capacity.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
	}
	return out
}

// capacityPod is p as the guard sees it: what its containers request
// (init containers run before and hold nothing after).
func capacityPod(p corev1.Pod) capacity.Pod {
	out := capacity.Pod{Name: p.Namespace + "/" + p.Name, Node: p.Spec.NodeName, VM: isVM(&p),
		Finished: p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed}
	for _, c := range p.Spec.Containers {
		out.Requests.MilliCPU += c.Resources.Requests.Cpu().MilliValue()
		out.Requests.Memory += c.Resources.Requests.Memory().Value()
	}
	if ref := metav1.GetControllerOf(&p); ref != nil && ref.Kind == "DaemonSet" {
		out.DaemonSet = true
	}
	_, out.Mirror = p.Annotations[corev1.MirrorPodAnnotationKey]
	for _, t := range p.Spec.Tolerations {
		out.Tolerations = append(out.Tolerations, capacity.Toleration{Key: t.Key, Operator: string(t.Operator), Value: t.Value, Effect: string(t.Effect)})
	}
	return out
}

func ready(n corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
