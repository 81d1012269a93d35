package kubesim

import (
	"context"
	"math"
	"time"

	"k8s.io/kubectl/pkg/util/podutils"

	"github.com/rackroll/rackroll/internal/lab/faults"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// disruptedPodTimeout is how long an evicted pod counts as disrupted
// without being seen terminating, as in the disruption controller.
const disruptedPodTimeout = 2 * time.Minute

// reconcilePDB writes a PDB's status as the disruption controller would;
// the eviction API refuses evictions unless observedGeneration is current
// and disruptionsAllowed > 0, so this is what makes PDBs bite.
func (s *Sim) reconcilePDB(ctx context.Context, key string) error {
	ns := s.opts.Namespace
	pdb, ok, err := tenantGet(s, key, s.pdbs.PodDisruptionBudgets(ns).Get)
	if !ok {
		return err
	}
	st, recheck, err := s.desiredPDBStatus(pdb)
	if err != nil {
		return err
	}
	if recheck > 0 {
		s.pdbQ.AddAfter(key, recheck)
	}
	if pdbStatusEqual(pdb.Status, st) {
		return nil
	}
	n := pdb.DeepCopy()
	n.Status = st
	_, err = s.client.PolicyV1().PodDisruptionBudgets(ns).UpdateStatus(ctx, n, metav1.UpdateOptions{})
	return err // a conflict with an eviction's decrement: retried
}

// desiredPDBStatus computes pdb's status from the caches.
func (s *Sim) desiredPDBStatus(pdb *policyv1.PodDisruptionBudget) (policyv1.PodDisruptionBudgetStatus, time.Duration, error) {
	pods, err := s.podsFor(pdb)
	if err != nil {
		return policyv1.PodDisruptionBudgetStatus{}, 0, err
	}
	blocked := false
	for _, p := range pods {
		if p.DeletionTimestamp == nil && p.Spec.NodeName != "" && s.hasFault(p.Spec.NodeName, faults.PDBBlocks) {
			blocked = true
			break
		}
	}
	st, recheck := computePDBStatus(pdb, pods, s.controllerScale(pods), blocked, s.now())
	return st, recheck, nil
}

// controllerScale sums spec.replicas of the ReplicaSets controlling pods;
// a pod without one counts as one.
func (s *Sim) controllerScale(pods []*corev1.Pod) int32 {
	seen := map[string]bool{}
	var n int32
	for _, p := range pods {
		ref := metav1.GetControllerOf(p)
		if ref == nil || ref.Kind != "ReplicaSet" {
			n++
			continue
		}
		if seen[string(ref.UID)] {
			continue
		}
		seen[string(ref.UID)] = true
		rs, err := s.rss.ReplicaSets(p.Namespace).Get(ref.Name)
		if err != nil || rs.UID != ref.UID || rs.Spec.Replicas == nil {
			n++
			continue
		}
		n += *rs.Spec.Replicas
	}
	return n
}

// computePDBStatus is the disruption controller's arithmetic. scale is
// the pods' controllers' desired replicas. blocked (the faults.PDBBlocks fault)
// forces disruptionsAllowed to 0 and raises desiredHealthy to
// currentHealthy, so the eviction API's refusal reads sensibly. recheck
// is when an entry of disruptedPods expires (0: none).
func computePDBStatus(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod, scale int32, blocked bool, now time.Time) (policyv1.PodDisruptionBudgetStatus, time.Duration) {
	var expected, desired int32
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		expected = scale
		maxU, _ := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, int(expected), true)
		desired = max(expected-int32(maxU), 0)
	case pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.Int:
		expected = int32(len(pods))
		desired = pdb.Spec.MinAvailable.IntVal
	case pdb.Spec.MinAvailable != nil:
		expected = scale
		minA, _ := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, int(expected), true)
		desired = int32(minA)
	default:
		expected = int32(len(pods))
	}

	disrupted := map[string]metav1.Time{}
	var recheck time.Duration = math.MaxInt64
	var healthy int32
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue // terminating: neither healthy nor pending disruption
		}
		if t, ok := pdb.Status.DisruptedPods[p.Name]; ok {
			if left := t.Add(disruptedPodTimeout).Sub(now); left > 0 {
				disrupted[p.Name] = t
				recheck = min(recheck, left)
				continue
			}
		}
		if podutils.IsPodReady(p) {
			healthy++
		}
	}
	if recheck == math.MaxInt64 {
		recheck = 0
	}
	allowed := max(healthy-desired, 0)
	if blocked {
		allowed = 0
		desired = max(desired, healthy)
	}
	st := policyv1.PodDisruptionBudgetStatus{
		ObservedGeneration: pdb.Generation,
		DisruptionsAllowed: allowed,
		CurrentHealthy:     healthy,
		DesiredHealthy:     desired,
		ExpectedPods:       expected,
		Conditions:         append([]metav1.Condition(nil), pdb.Status.Conditions...),
	}
	if len(disrupted) > 0 {
		st.DisruptedPods = disrupted
	}
	cond := metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionTrue,
		Reason: policyv1.SufficientPodsReason, ObservedGeneration: pdb.Generation, LastTransitionTime: metav1.NewTime(now)}
	if allowed == 0 {
		cond.Status, cond.Reason = metav1.ConditionFalse, policyv1.InsufficientPodsReason
	}
	meta.SetStatusCondition(&st.Conditions, cond)
	return st, recheck
}

// pdbStatusEqual compares what the controller owns, ignoring condition times.
func pdbStatusEqual(a, b policyv1.PodDisruptionBudgetStatus) bool {
	if a.ObservedGeneration != b.ObservedGeneration || a.DisruptionsAllowed != b.DisruptionsAllowed ||
		a.CurrentHealthy != b.CurrentHealthy || a.DesiredHealthy != b.DesiredHealthy || a.ExpectedPods != b.ExpectedPods ||
		len(a.DisruptedPods) != len(b.DisruptedPods) || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for k, v := range a.DisruptedPods {
		if w, ok := b.DisruptedPods[k]; !ok || !w.Equal(&v) {
			return false
		}
	}
	for _, c := range b.Conditions {
		o := meta.FindStatusCondition(a.Conditions, c.Type)
		if o == nil || o.Status != c.Status || o.Reason != c.Reason || o.ObservedGeneration != c.ObservedGeneration {
			return false
		}
	}
	return true
}

// enqueuePDBsFor queues the PDBs in p's namespace that select it.
func (s *Sim) enqueuePDBsFor(p *corev1.Pod) {
	if p.Namespace != s.opts.Namespace {
		return
	}
	for _, pdb := range s.pdbsFor(p) {
		s.pdbQ.Add(pdb.Namespace + "/" + pdb.Name)
	}
}

// enqueuePDBsOnNode queues the PDBs covering any pod on node.
func (s *Sim) enqueuePDBsOnNode(node string) {
	if !s.isSynced() {
		return
	}
	for _, p := range s.podsOnNode(node) {
		s.enqueuePDBsFor(p)
	}
}
