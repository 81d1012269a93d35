package capacity

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// receiver is a node that stays up, in the shape the scheduler helpers
// read.
type receiver struct {
	Name string
	node *corev1.Node
}

func newReceiver(n Node) receiver {
	return receiver{Name: n.Name, node: &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels},
		Spec:       corev1.NodeSpec{Taints: n.Taints},
	}}
}

// filter is what the scheduler's NodeAffinity and TaintToleration filter
// plugins ask of a node for one pod (kube-scheduler,
// pkg/scheduler/framework/plugins/{nodeaffinity,tainttoleration}). Room
// is place's; topology spread and inter-pod affinity are not judged.
type filter struct {
	pod      Pod
	affinity nodeaffinity.RequiredNodeAffinity
}

func newFilter(p Pod) filter {
	spec := corev1.PodSpec{NodeSelector: p.NodeSelector}
	if p.Affinity != nil {
		spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: p.Affinity}}
	}
	return filter{pod: p, affinity: nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{Spec: spec})}
}

// matches: the node satisfies the pod's nodeSelector and required node
// affinity (a selector the API would reject matches nothing).
func (f filter) matches(n receiver) bool {
	ok, err := f.affinity.Match(n.node)
	return ok && err == nil
}

// untolerated is the first NoSchedule or NoExecute taint of n the pod
// does not tolerate (PreferNoSchedule only prefers).
func (f filter) untolerated(n receiver) (corev1.Taint, bool) {
	return corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), n.node.Spec.Taints, f.pod.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, false)
}

// allows is "" when the pod may be scheduled on n, room aside, else why not.
func (f filter) allows(n receiver) string {
	if !f.matches(n) {
		return "affinity"
	}
	if t, ok := f.untolerated(n); ok {
		return "taint " + taintString(t)
	}
	return ""
}

// none says why no receiver would take the pod whatever its room ("" when
// some would): its selector matches none, or it tolerates none of those
// that match.
func (f filter) none(receivers []receiver) string {
	taints := map[string]bool{}
	matched := false
	for _, n := range receivers {
		if !f.matches(n) {
			continue
		}
		matched = true
		t, ok := f.untolerated(n)
		if !ok {
			return ""
		}
		taints[taintString(t)] = true
	}
	if !matched {
		return f.constraint() + " matches no node that stays up"
	}
	list := strings.Join(slices.Sorted(maps.Keys(taints)), ", ")
	if c := f.constraint(); c != "" {
		return c + " matches only nodes that stay up with taints it does not tolerate (" + list + ")"
	}
	return "no toleration for the taints of the nodes that stay up (" + list + ")"
}

// constraint names the pod's node constraints as its spec writes them.
func (f filter) constraint() string {
	var parts []string
	if len(f.pod.NodeSelector) > 0 {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(f.pod.NodeSelector)) {
			kv = append(kv, k+"="+f.pod.NodeSelector[k])
		}
		parts = append(parts, "nodeSelector "+strings.Join(kv, ","))
	}
	if a := f.pod.Affinity; a != nil {
		var terms []string
		for _, t := range a.NodeSelectorTerms {
			var reqs []string
			for _, r := range append(slices.Clone(t.MatchExpressions), t.MatchFields...) {
				reqs = append(reqs, fmt.Sprintf("%s %s %s", r.Key, r.Operator, strings.Join(r.Values, ",")))
			}
			terms = append(terms, strings.Join(reqs, " and "))
		}
		parts = append(parts, "required node affinity "+strings.Join(terms, " or "))
	}
	return strings.Join(parts, " and ")
}

func taintString(t corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}
