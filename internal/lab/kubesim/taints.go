package kubesim

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaintenanceTaint is the taint faults.MaintenanceTaint puts on a node, as
// a site's maintenance tooling marks a node it works on: NoSchedule, so
// the scheduler places no new pod there, and what runs stays. A keyset
// pod names its node and meets no scheduler, so it still runs there
// (docs/keysets-nodes.md#taints).
var MaintenanceTaint = corev1.Taint{Key: "lab.rackroll.io/maintenance", Value: "true", Effect: corev1.TaintEffectNoSchedule}

// syncMaintenanceTaint puts MaintenanceTaint on node, or takes it off, as
// the fault says, and says whether it wrote (the node's update queues
// the next sync); a conflict with another writer is retried by the queue.
func (s *Sim) syncMaintenanceTaint(ctx context.Context, node *corev1.Node, on bool) (bool, error) {
	i := slices.IndexFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == MaintenanceTaint.Key })
	if (i >= 0) == on {
		return false, nil
	}
	n := node.DeepCopy()
	if on {
		n.Spec.Taints = append(n.Spec.Taints, MaintenanceTaint)
	} else {
		n.Spec.Taints = slices.Delete(n.Spec.Taints, i, i+1)
	}
	if _, err := s.client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
		return false, fmt.Errorf("taint node %s: %w", node.Name, err)
	}
	return true, nil
}
