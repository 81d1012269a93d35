package kubesim

import (
	"maps"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/rackroll/rackroll/internal/lab/events"
)

// addHandlers turns watch events into queue keys and into the event log
// entries for changes made by others: cordon/uncordon, labels, evictions
// and node deletions.
func (s *Sim) addHandlers(nodes, pods, pdbs, rss cache.SharedIndexInformer) {
	nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			n := obj.(*corev1.Node)
			if !s.ours(n.Name) {
				return
			}
			s.remember(n)
			s.nodeQ.Add(n.Name)
		},
		UpdateFunc: func(oldObj, newObj any) {
			o, n := oldObj.(*corev1.Node), newObj.(*corev1.Node)
			if !s.ours(n.Name) {
				return
			}
			if o.Spec.Unschedulable != n.Spec.Unschedulable {
				kind := events.Uncordon
				if n.Spec.Unschedulable {
					kind = events.Cordon
				}
				s.emitFor(kind, n.Name, nil)
			}
			if changed, removed := labelDiff(o.Labels, n.Labels); len(changed)+len(removed) > 0 {
				d := map[string]any{"labels": changed}
				if len(removed) > 0 {
					d["removed"] = removed
				}
				s.emitFor(events.NodeLabel, n.Name, d)
			}
			s.remember(n)
			s.nodeQ.Add(n.Name)
		},
		DeleteFunc: func(obj any) {
			n, ok := tombstone[*corev1.Node](obj)
			if !ok || !s.ours(n.Name) {
				return
			}
			s.mu.Lock()
			if m, ok := s.byNode[n.Name]; ok {
				m.deleted = true
			}
			s.mu.Unlock()
			s.emitFor(events.NodeDeleted, n.Name, nil)
			s.nodeQ.Add(n.Name)
		},
	})
	pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			p := obj.(*corev1.Pod)
			if !s.podOurs(p) {
				return
			}
			if p.DeletionTimestamp != nil {
				s.trackTerminating(p)
			}
			s.podChanged(p)
		},
		UpdateFunc: func(oldObj, newObj any) {
			o, p := oldObj.(*corev1.Pod), newObj.(*corev1.Pod)
			if !s.podOurs(p) {
				return
			}
			// Any graceful deletion counts: the eviction API is how drains
			// delete, and the log cannot tell the two apart anyway.
			if o.DeletionTimestamp == nil && p.DeletionTimestamp != nil {
				s.emitFor(events.Evict, p.Spec.NodeName, map[string]any{"pod": p.Name, "namespace": p.Namespace})
				s.trackTerminating(p)
			}
			s.podChanged(p)
		},
		DeleteFunc: func(obj any) {
			p, ok := tombstone[*corev1.Pod](obj)
			if !ok || !s.podOurs(p) {
				return
			}
			s.mu.Lock()
			delete(s.termSince, p.Namespace+"/"+p.Name)
			s.mu.Unlock()
			s.podChanged(p)
		},
	})
	pdbs.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.pdbQ.Add(key(obj.(*policyv1.PodDisruptionBudget).ObjectMeta)) },
		UpdateFunc: func(_, obj any) { s.pdbQ.Add(key(obj.(*policyv1.PodDisruptionBudget).ObjectMeta)) },
		DeleteFunc: func(obj any) {
			if pdb, ok := tombstone[*policyv1.PodDisruptionBudget](obj); ok {
				s.selectors.forget(pdb.UID)
			}
		},
	})
	rss.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.rsQ.Add(key(obj.(*appsv1.ReplicaSet).ObjectMeta)) },
		UpdateFunc: func(_, obj any) { s.rsQ.Add(key(obj.(*appsv1.ReplicaSet).ObjectMeta)) },
	})
}

// podChanged queues what depends on a pod: its node's kubelet, its
// ReplicaSet and the PDBs selecting it.
func (s *Sim) podChanged(p *corev1.Pod) {
	if p.Spec.NodeName != "" && s.ours(p.Spec.NodeName) {
		s.nodeQ.Add(p.Spec.NodeName)
	}
	if ref := metav1.GetControllerOf(p); ref != nil && ref.Kind == "ReplicaSet" {
		s.rsQ.Add(p.Namespace + "/" + ref.Name)
	}
	s.enqueuePDBsFor(p)
}

func key(m metav1.ObjectMeta) string { return m.Namespace + "/" + m.Name }

// tombstone unwraps a delete notification that may come as a
// DeletedFinalStateUnknown after a missed watch event.
func tombstone[T any](obj any) (T, bool) {
	if t, ok := obj.(T); ok {
		return t, true
	}
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		t, ok := d.Obj.(T)
		return t, ok
	}
	var zero T
	return zero, false
}

// remember keeps a node's labels, so its kubelet can re-register with
// them after the node is deleted, and whether it was cordoned.
func (s *Sim) remember(n *corev1.Node) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.byNode[n.Name]; ok {
		m.labels = maps.Clone(n.Labels)
		m.cordoned = n.Spec.Unschedulable
	}
}

// labelDiff returns labels added or changed in b, and keys b dropped.
func labelDiff(a, b map[string]string) (map[string]string, []string) {
	changed := map[string]string{}
	for k, v := range b {
		if old, ok := a[k]; !ok || old != v {
			changed[k] = v
		}
	}
	var removed []string
	for k := range a {
		if _, ok := b[k]; !ok {
			removed = append(removed, k)
		}
	}
	sort.Strings(removed)
	return changed, removed
}
