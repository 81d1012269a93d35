package kube

import (
	"context"
	"fmt"
	"slices"

	"github.com/rackroll/rackroll/internal/capacity"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
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
	// control plane (and the upgrade's critical path) little. The two lists
	// are asked side by side: the check runs in the rack's first workflow
	// task, so it waits for the longer one only (both grow with the site).
	cached := metav1.ListOptions{ResourceVersion: "0"}
	var nl *corev1.NodeList
	var nodesErr error
	listed := make(chan struct{})
	go func() {
		defer close(listed)
		nl, nodesErr = cs.CoreV1().Nodes().List(ctx, cached)
	}()
	pl, err := cs.CoreV1().Pods("").List(ctx, cached)
	<-listed
	if nodesErr != nil {
		return capacity.Report{}, Forbidden(fmt.Errorf("list nodes: %w", nodesErr))
	}
	if err != nil {
		return capacity.Report{}, Forbidden(fmt.Errorf("list pods: %w", err))
	}
	nodes := make([]capacity.Node, 0, len(nl.Items))
	for _, n := range nl.Items {
		nodes = append(nodes, capacityNode(n))
	}
	pods := make([]capacity.Pod, 0, len(pl.Items))
	for _, p := range pl.Items {
		cp := capacityPod(p)
		if slices.Contains(in.Nodes, p.Spec.NodeName) && !cp.DaemonSet && !cp.Mirror && !cp.VM && !cp.Finished {
			// Only the pods the drain moves: a few gets, not a list of
			// every claim and volume of the cluster.
			if cp.LocalVolume, err = localVolume(ctx, cs, p); err != nil {
				return capacity.Report{}, err
			}
		}
		pods = append(pods, cp)
	}
	return capacity.Check(in.Nodes, nodes, pods), nil
}

// localVolume names p's first volume bound to storage of its node only: a
// PersistentVolume of type local or hostPath (Kubernetes docs, "Volumes:
// local": the scheduler places the pod where the volume is). "" when none.
func localVolume(ctx context.Context, cs kubernetes.Interface, p corev1.Pod) (string, error) {
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		claim := v.PersistentVolumeClaim.ClaimName
		pvc, err := cs.CoreV1().PersistentVolumeClaims(p.Namespace).Get(ctx, claim, metav1.GetOptions{ResourceVersion: "0"})
		if apierrors.IsNotFound(err) {
			continue // the pod cannot start anywhere either; not the drain's doing
		}
		if err != nil {
			return "", Forbidden(fmt.Errorf("get claim %s/%s of pod %s: %w", p.Namespace, claim, p.Name, err))
		}
		if pvc.Spec.VolumeName == "" {
			continue
		}
		pv, err := cs.CoreV1().PersistentVolumes().Get(ctx, pvc.Spec.VolumeName, metav1.GetOptions{ResourceVersion: "0"})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return "", Forbidden(fmt.Errorf("get volume %s of pod %s/%s: %w", pvc.Spec.VolumeName, p.Namespace, p.Name, err))
		}
		if pv.Spec.Local != nil || pv.Spec.HostPath != nil {
			return fmt.Sprintf("%s (claim %s, volume %s)", v.Name, claim, pv.Name), nil
		}
	}
	return "", nil
}

func capacityNode(n corev1.Node) capacity.Node {
	return capacity.Node{Name: n.Name, Labels: n.Labels, Taints: n.Spec.Taints, Schedulable: !n.Spec.Unschedulable && ready(n),
		Allocatable: capacity.Resources{MilliCPU: n.Status.Allocatable.Cpu().MilliValue(), Memory: n.Status.Allocatable.Memory().Value()}}
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
	ref := metav1.GetControllerOf(&p)
	out.DaemonSet = ref != nil && ref.Kind == "DaemonSet"
	out.Bare = ref == nil
	out.NodeSelector = p.Spec.NodeSelector
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		out.Affinity = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	out.Tolerations = p.Spec.Tolerations
	_, out.Mirror = p.Annotations[corev1.MirrorPodAnnotationKey]
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
