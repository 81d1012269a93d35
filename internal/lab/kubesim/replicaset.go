package kubesim

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/rackroll/rackroll/internal/model"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// creationGrace is how long a pod the simulator created counts as present
// before the informer shows it, so a lagging cache cannot cause doubles.
const creationGrace = 30 * time.Second

// tenantGet looks up the object a work-queue key names; ok is false when
// it lies outside the tenant namespace (not the simulator's) or is gone.
func tenantGet[T any](s *Sim, key string, get func(name string) (T, error)) (obj T, ok bool, err error) {
	ns, name, _ := cache.SplitMetaNamespaceKey(key)
	if ns != s.opts.Namespace {
		return obj, false, nil
	}
	obj, err = get(name)
	if apierrors.IsNotFound(err) {
		return obj, false, nil
	}
	return obj, err == nil, err
}

// reconcileRS is a minimal ReplicaSet controller for the tenant
// namespace: it replaces evicted or collected pods so drains make
// progress against maxUnavailable PDBs, placing each replacement with the
// simulator's scheduler (Pending when no compute node can take it).
func (s *Sim) reconcileRS(ctx context.Context, key string) error {
	ns := s.opts.Namespace
	rs, ok, err := tenantGet(s, key, s.rss.ReplicaSets(ns).Get)
	if !ok || rs.Spec.Replicas == nil {
		return err
	}
	used := map[int]bool{}
	active := 0
	for _, p := range s.indexed(indexOwner, string(rs.UID)) {
		used[replicaIndex(rs.Name, p.Name)] = true
		if p.DeletionTimestamp == nil {
			active++
		}
	}
	now := s.now()
	s.mu.Lock()
	for podKey, at := range s.creating {
		pns, pname, _ := cache.SplitMetaNamespaceKey(podKey)
		if pns != ns || !strings.HasPrefix(pname, rs.Name+"-") {
			continue
		}
		if _, err := s.pods.Pods(pns).Get(pname); err == nil || now.Sub(at) > creationGrace {
			delete(s.creating, podKey)
			continue
		}
		if i := replicaIndex(rs.Name, pname); i >= 0 && !used[i] {
			used[i] = true
			active++
		}
	}
	s.mu.Unlock()

	for ; active < int(*rs.Spec.Replicas); active++ {
		i := 0
		for used[i] {
			i++
		}
		used[i] = true
		p := appPod(rs, i, s.pickNode(rs.Name, rs.Spec.Template.Spec))
		if _, err := s.client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("replace pod of %s: %w", rs.Name, err)
		}
		s.mu.Lock()
		s.creating[ns+"/"+p.Name] = now
		s.mu.Unlock()
	}
	return nil
}

// replicaIndex parses the n of "<rs>-<n>" (-1 when it is not one).
func replicaIndex(rs, pod string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(pod, rs+"-"))
	if err != nil || !strings.HasPrefix(pod, rs+"-") {
		return -1
	}
	return n
}

// pickNode chooses a node for a pod of app with spec: a Ready,
// schedulable compute node with room for it (allocatable less what its
// pods request, as the scheduler counts) that its nodeSelector and
// required node affinity match and whose NoSchedule/NoExecute taints it
// tolerates (the scheduler's filters, with its own helpers), fewest pods
// of the same app first, then fewest pods, then name. "" when none
// qualifies.
func (s *Sim) pickNode(app string, spec corev1.PodSpec) string {
	nodes, err := s.nodes.List(labels.SelectorFromSet(labels.Set{model.LabelRole: "compute"}))
	if err != nil {
		return ""
	}
	req := requestsOf(spec)
	affinity := nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{Spec: spec})
	best, bestSame, bestAll := "", 0, 0
	for _, n := range nodes {
		if n.Spec.Unschedulable || readyStatus(n) != corev1.ConditionTrue || !s.ours(n.Name) {
			continue
		}
		if ok, err := affinity.Match(n); !ok || err != nil {
			continue
		}
		if _, untolerated := corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), n.Spec.Taints, spec.Tolerations, func(t *corev1.Taint) bool {
			return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
		}, false); untolerated {
			continue
		}
		same, all := 0, 0
		used := resources{}
		for _, p := range s.podsOnNode(n.Name) {
			if p.DeletionTimestamp != nil {
				continue
			}
			all++
			used = used.add(requestsOf(p.Spec))
			if p.Labels[labelApp] == app {
				same++
			}
		}
		if !used.add(req).within(n.Status.Allocatable) {
			continue
		}
		if best == "" || same < bestSame || (same == bestSame && (all < bestAll || (all == bestAll && n.Name < best))) {
			best, bestSame, bestAll = n.Name, same, all
		}
	}
	return best
}

// schedulePending binds tenant pods left Pending without a node once a
// node can take them, as the scheduler would.
func (s *Sim) schedulePending(ctx context.Context) {
	pods, err := s.pods.Pods(s.opts.Namespace).List(labels.SelectorFromSet(labels.Set{model.LabelWorkload: WorkloadApp}))
	if err != nil {
		return
	}
	for _, p := range pods {
		if p.Spec.NodeName != "" || p.DeletionTimestamp != nil {
			continue
		}
		node := s.pickNode(p.Labels[labelApp], p.Spec)
		if node == "" {
			return
		}
		b := &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID},
			Target:     corev1.ObjectReference{Kind: "Node", Name: node},
		}
		if err := s.client.CoreV1().Pods(p.Namespace).Bind(ctx, b, metav1.CreateOptions{}); err != nil {
			continue // already bound or gone; the next tick looks again
		}
	}
}
