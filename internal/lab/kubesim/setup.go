package kubesim

import (
	"context"
	"fmt"
	"sync"

	"github.com/rackroll/rackroll/internal/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Tenant workload shape, per compute node.
const (
	appReplicas = 2 // pods of the node's ReplicaSet, all placed on it at Setup
	vmsPerNode  = 2 // the first is Running, the second Stopped
	podGrace    = 30
	setupConc   = 32 // parallel creates; client QPS is the real limit
)

// Setup registers one Ready node per racked machine and, with Options.Workloads,
// places the tenant workloads: per compute node a ReplicaSet whose pods
// start on that node, a PDB over them (maxUnavailable 1), and VM pods
// pinned to the node. Objects that already exist are left alone.
func (s *Sim) Setup(ctx context.Context) error {
	var ms []Machine
	for _, m := range s.Machines() {
		if !m.Unracked { // registered by its kubelet once racked and booted
			ms = append(ms, m)
		}
	}
	if err := parallel(ctx, len(ms), func(i int) error { return s.registerNode(ctx, ms[i]) }); err != nil {
		return err
	}
	if !s.opts.Workloads {
		return nil
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.opts.Namespace}}
	if _, err := s.client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", s.opts.Namespace, err)
	}
	var compute []Machine
	for _, m := range ms {
		if m.Role == "compute" {
			compute = append(compute, m)
		}
	}
	return parallel(ctx, len(compute), func(i int) error { return s.placeWorkloads(ctx, compute[i]) })
}

// registerNode creates m's node, Ready, as its kubelet would on first boot.
func (s *Sim) registerNode(ctx context.Context, m Machine) error {
	snap, _ := s.snapshotByNode(m.NodeName)
	node := newNode(snap, s.now())
	if _, err := s.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("register node %s: %w", m.NodeName, err)
	}
	return nil
}

func (s *Sim) placeWorkloads(ctx context.Context, m Machine) error {
	node := m.NodeName
	name := "app-" + node
	ns := s.opts.Namespace
	rs := replicaSet(ns, name, tenantRequests(m.TenantLoad))
	created, err := s.client.AppsV1().ReplicaSets(ns).Create(ctx, rs, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		created, err = s.client.AppsV1().ReplicaSets(ns).Get(ctx, name, metav1.GetOptions{})
	}
	if err != nil {
		return fmt.Errorf("create replicaset %s: %w", name, err)
	}
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable: ptr.To(intstr.FromInt32(1)),
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{labelApp: name}},
		},
	}
	if _, err := s.client.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create pdb %s: %w", name, err)
	}
	var pods []*corev1.Pod
	for i := range appReplicas {
		pods = append(pods, appPod(created, i, node))
	}
	for i := range vmsPerNode {
		state := model.VMRunning
		if i%2 == 1 {
			state = model.VMStopped
		}
		pods = append(pods, vmPod(ns, fmt.Sprintf("vm-%s-%d", node, i), node, state))
	}
	for _, p := range pods {
		if _, err := s.client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create pod %s: %w", p.Name, err)
		}
	}
	return nil
}

func replicaSet(ns, name string, requests corev1.ResourceList) *appsv1.ReplicaSet {
	sel := map[string]string{labelApp: name}
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{model.LabelWorkload: WorkloadApp}},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(int32(appReplicas)),
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{labelApp: name, model.LabelWorkload: WorkloadApp}},
				Spec:       withRequests(podSpec(""), requests),
			},
		},
	}
}

// appPod is replica i of rs, bound to node ("" leaves it Pending for the
// simulator's scheduler).
func appPod(rs *appsv1.ReplicaSet, i int, node string) *corev1.Pod {
	spec := *rs.Spec.Template.Spec.DeepCopy()
	spec.NodeName = node
	labels := map[string]string{}
	for k, v := range rs.Spec.Template.Labels {
		labels[k] = v
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%s-%d", rs.Name, i),
			Namespace: rs.Namespace,
			Labels:    labels,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: spec,
	}
}

// vmPod is a tenant VM's launcher pod, pinned to node. It has no owner:
// drains skip VMs, which are shut down separately.
func vmPod(ns, name, node, state string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Namespace:   ns,
			Labels:      map[string]string{model.LabelWorkload: model.WorkloadVM},
			Annotations: map[string]string{model.AnnotationVMState: state},
		},
		Spec: podSpec(node),
	}
}

// podSpec has an emptyDir so drains must pass DeleteEmptyDirData, as
// with real tenant pods.
func podSpec(node string) corev1.PodSpec {
	return corev1.PodSpec{
		NodeName:                      node,
		TerminationGracePeriodSeconds: ptr.To(int64(podGrace)),
		Containers:                    []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}},
		Volumes:                       []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
	}
}

func withRequests(spec corev1.PodSpec, requests corev1.ResourceList) corev1.PodSpec {
	spec.Containers[0].Resources.Requests = requests
	return spec
}

// parallel runs f(0..n-1) with bounded concurrency and returns the first error.
func parallel(ctx context.Context, n int, f func(int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	sem := make(chan struct{}, setupConc)
	for i := range n {
		mu.Lock()
		failed := first != nil
		mu.Unlock()
		if failed || ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(i); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}
