package kubesim

import (
	"context"
	"time"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// Pod indexes kept on the informer.
const (
	indexNode  = "node"  // spec.nodeName
	indexOwner = "owner" // UID of the controlling owner
	indexApp   = "app"   // namespace/value of the "app" label, which PDBs select on
)

var podIndexers = cache.Indexers{
	indexNode: func(obj any) ([]string, error) {
		if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
			return []string{p.Spec.NodeName}, nil
		}
		return nil, nil
	},
	indexApp: func(obj any) ([]string, error) {
		if p, ok := obj.(*corev1.Pod); ok {
			if v, ok := p.Labels[labelApp]; ok {
				return []string{p.Namespace + "/" + v}, nil
			}
		}
		return nil, nil
	},
	indexOwner: func(obj any) ([]string, error) {
		if p, ok := obj.(*corev1.Pod); ok {
			if ref := metav1.GetControllerOf(p); ref != nil {
				return []string{string(ref.UID)}, nil
			}
		}
		return nil, nil
	},
}

func (s *Sim) podsOnNode(node string) []*corev1.Pod {
	return s.indexed(indexNode, node)
}

func (s *Sim) indexed(index, value string) []*corev1.Pod {
	objs, err := s.podIdx.ByIndex(index, value)
	if err != nil {
		return nil
	}
	out := make([]*corev1.Pod, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*corev1.Pod))
	}
	return out
}

// syncPods is the kubelet's pod status sync: pods start Running once the
// node is Ready, and are Ready exactly while the node is Ready (a VM pod
// also needs its VM running). Terminating pods are left to reconcilePod.
func (s *Sim) syncPods(ctx context.Context, node string, nodeReady bool) error {
	for _, p := range s.podsOnNode(node) {
		if p.DeletionTimestamp != nil {
			continue
		}
		if p.Labels[keyset.NodePodLabel] != "" {
			if err := s.runKeysetPod(ctx, p, nodeReady); err != nil {
				return err
			}
			continue
		}
		st, changed := desiredPodStatus(p, nodeReady, s.now())
		if !changed {
			continue
		}
		np := p.DeepCopy()
		np.Status = st
		if _, err := s.client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, np, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// desiredPodStatus returns the status a kubelet would post for p on a
// node that is (or is not) Ready, and whether it differs from p's.
func desiredPodStatus(p *corev1.Pod, nodeReady bool, now time.Time) (corev1.PodStatus, bool) {
	st := *p.Status.DeepCopy()
	running := st.Phase == corev1.PodRunning
	if !running && !nodeReady {
		return st, false // a pending pod waits for its kubelet
	}
	if st.Phase != corev1.PodRunning && st.Phase != corev1.PodPending && st.Phase != "" {
		return st, false // terminal pods stay as they are
	}
	ready := nodeReady && (p.Labels[model.LabelWorkload] != model.WorkloadVM || p.Annotations[model.AnnotationVMState] != model.VMStopped)
	changed := false
	t := metav1.NewTime(now)
	if !running {
		st.Phase = corev1.PodRunning
		st.StartTime = &t
		changed = true
	}
	cond := func(typ corev1.PodConditionType, ok bool) {
		want := corev1.ConditionFalse
		if ok {
			want = corev1.ConditionTrue
		}
		for i := range st.Conditions {
			if st.Conditions[i].Type == typ {
				if st.Conditions[i].Status != want {
					st.Conditions[i].Status = want
					st.Conditions[i].LastTransitionTime = t
					changed = true
				}
				return
			}
		}
		st.Conditions = append(st.Conditions, corev1.PodCondition{Type: typ, Status: want, LastTransitionTime: t})
		changed = true
	}
	cond(corev1.PodScheduled, true)
	cond(corev1.PodInitialized, true)
	cond(corev1.ContainersReady, ready)
	cond(corev1.PodReady, ready)
	if len(st.ContainerStatuses) != len(p.Spec.Containers) {
		st.ContainerStatuses = nil
		for _, c := range p.Spec.Containers {
			st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{
				Name: c.Name, Image: c.Image, ImageID: c.Image, Started: ptr.To(true),
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t}},
			})
		}
		changed = true
	}
	for i := range st.ContainerStatuses {
		if st.ContainerStatuses[i].Ready != ready {
			st.ContainerStatuses[i].Ready = ready
			changed = true
		}
	}
	return st, changed
}

// trackTerminating notes when a pod was first seen terminating and
// schedules its removal.
func (s *Sim) trackTerminating(p *corev1.Pod) {
	key := p.Namespace + "/" + p.Name
	s.mu.Lock()
	if _, ok := s.termSince[key]; !ok {
		s.termSince[key] = s.now()
	}
	s.mu.Unlock()
	s.podQ.Add(key)
}

// terminationDelay is how long a terminating pod lingers: Options.Drain
// or the grace period the deletion recorded, ×slowDrainFactor under faults.SlowDrain.
func (s *Sim) terminationDelay(p *corev1.Pod) time.Duration {
	d := s.opts.Drain
	if d <= 0 && p.DeletionGracePeriodSeconds != nil {
		d = time.Duration(*p.DeletionGracePeriodSeconds) * time.Second
	}
	if s.hasFault(p.Spec.NodeName, faults.SlowDrain) {
		d *= slowDrainFactor
	}
	return d
}

// reconcilePod finishes a terminating pod once its kubelet has had the
// grace period, by force-deleting it (grace 0) as a kubelet does after
// its containers stop. A pod whose kubelet is down stays Terminating, as
// in a real cluster; one whose node is gone is collected at once.
func (s *Sim) reconcilePod(ctx context.Context, key string) error {
	ns, name, _ := cache.SplitMetaNamespaceKey(key)
	p, err := s.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) {
		s.mu.Lock()
		delete(s.termSince, key)
		s.mu.Unlock()
		return nil
	}
	if err != nil || p.DeletionTimestamp == nil || !s.podOurs(p) {
		return err
	}
	if p.Spec.NodeName != "" {
		if _, err := s.nodes.Get(p.Spec.NodeName); err == nil {
			if m, ok := s.snapshotByNode(p.Spec.NodeName); ok && !kubeletUp(m.state, m.faults) {
				s.podQ.AddAfter(key, s.opts.Tick)
				return nil
			}
			s.mu.Lock()
			since, ok := s.termSince[key]
			if !ok {
				since = s.now()
				s.termSince[key] = since
			}
			s.mu.Unlock()
			if wait := since.Add(s.terminationDelay(p)).Sub(s.now()); wait > 0 {
				s.podQ.AddAfter(key, wait)
				return nil
			}
		}
	}
	return s.forceDelete(ctx, p)
}

func (s *Sim) forceDelete(ctx context.Context, p *corev1.Pod) error {
	err := s.client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{
		GracePeriodSeconds: ptr.To(int64(0)),
		Preconditions:      &metav1.Preconditions{UID: &p.UID},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone already, or a new pod of the same name
	}
	return err
}

// collectOrphans is the pod garbage collector for a node that no longer
// exists: ReplicaSet pods are deleted (and replaced elsewhere); VM pods
// are pinned to their machine and wait for it to re-register.
func (s *Sim) collectOrphans(ctx context.Context, node string) error {
	for _, p := range s.podsOnNode(node) {
		if p.Labels[model.LabelWorkload] == model.WorkloadVM {
			continue
		}
		if err := s.forceDelete(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// enqueueTerminatingOnNode re-evaluates terminating pods on node (after
// faults.SlowDrain changes).
func (s *Sim) enqueueTerminatingOnNode(node string) {
	if !s.isSynced() {
		return
	}
	for _, p := range s.podsOnNode(node) {
		if p.DeletionTimestamp != nil {
			s.podQ.Add(p.Namespace + "/" + p.Name)
		}
	}
}
