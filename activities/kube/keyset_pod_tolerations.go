package kube

import (
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
)

// keysetTolerations are the taints a node under maintenance carries, which
// its keyset pod runs despite (docs/keysets-nodes.md#taints):
//
//   - node.kubernetes.io/unschedulable (NoSchedule): the cordon's. The pod
//     names its node (nodeName), so no scheduler looks at NoSchedule taints
//     and the kubelet checks NoExecute ones only (kubernetes
//     pkg/kubelet/lifecycle/predicate.go); it is tolerated anyway, as a
//     DaemonSet's pods do, so that a policy or a scheduler that reads it
//     finds the pod meant for a cordoned node.
//   - node.kubernetes.io/not-ready (NoExecute): a node whose kubelet runs
//     but is not Ready (its network plugin down, say) is where an operator
//     most needs to log in; without it the kubelet refuses the pod.
//   - node.kubernetes.io/unreachable (NoExecute): the pod cannot run on a
//     node that is down, but tolerating it keeps the taint manager from
//     deleting the pod while the activity waits, so the outcome says the
//     node is down (its Ready condition) instead of "deleted".
//
// No wildcard: a NoExecute taint a site puts on a node of its own
// (a quarantine, node.kubernetes.io/out-of-service) says nothing is to run
// there, and the outcome names it instead of running over it.
var keysetTolerations = []corev1.Toleration{
	{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
}

// untolerated lists the taints of n that keep a keyset pod off it: the
// NoExecute ones it does not tolerate (the only ones a kubelet checks for
// a pod that names its node), as key=value:effect.
func untolerated(taints []corev1.Taint, tols []corev1.Toleration) string {
	var out []string
	for _, t := range taints {
		if t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !tolerated(t, tols) {
			out = append(out, fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect))
		}
	}
	return strings.Join(out, ", ")
}

func tolerated(t corev1.Taint, tols []corev1.Toleration) bool {
	for _, tol := range tols {
		if tol.ToleratesTaint(logr.Discard(), &t, false) {
			return true
		}
	}
	return false
}
