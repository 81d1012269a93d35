package capacity

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

func labelled(n Node, kv ...string) Node {
	n.Labels = map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		n.Labels[kv[i]] = kv[i+1]
	}
	return n
}

// The scheduler's filters, as the guard reads them: a drained pod lands
// only where its nodeSelector and required node affinity match and every
// NoSchedule/NoExecute taint is tolerated; pods no other node can run are
// reported; DaemonSet pods are not counted. Room is plenty everywhere, so
// each verdict is the constraint's.
func TestCapacityHonoursSchedulingConstraints(t *testing.T) {
	dedicated := corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}
	evicting := corev1.Taint{Key: "maintenance", Effect: corev1.TaintEffectNoExecute}
	rack1 := func(name string) Node { return labelled(node(name, 100), "rackroll.io/rack", "rack1", "disk", "ssd") }
	rack2 := func(name string, taints ...corev1.Taint) Node {
		return labelled(node(name, 100, taints...), "rackroll.io/rack", "rack2")
	}
	inRack := func(racks ...string) *corev1.NodeSelector {
		return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "rackroll.io/rack", Operator: corev1.NodeSelectorOpIn, Values: racks}}}}}
	}
	for _, tc := range []struct {
		name      string
		stay      []Node
		pod       func(*Pod)
		pending   bool
		reason    string // in Reasons
		unmovable string // in Unmovable
	}{
		{name: "no constraint", stay: []Node{rack2("b")}, pod: func(*Pod) {}},
		{name: "nodeSelector only the batch matches", stay: []Node{rack2("b")},
			pod:     func(p *Pod) { p.NodeSelector = map[string]string{"rackroll.io/rack": "rack1"} },
			pending: true, reason: "tenant/p: nodeSelector rackroll.io/rack=rack1 matches no node that stays up"},
		{name: "nodeSelector a staying node matches", stay: []Node{rack2("b"), rack1("a2")},
			pod: func(p *Pod) { p.NodeSelector = map[string]string{"rackroll.io/rack": "rack1"} }},
		{name: "required affinity only the batch matches", stay: []Node{rack2("b")},
			pod:     func(p *Pod) { p.Affinity = inRack("rack1", "rack3") },
			pending: true, reason: "tenant/p: required node affinity rackroll.io/rack In rack1,rack3 matches no node that stays up"},
		{name: "required affinity matched", stay: []Node{rack2("b")}, pod: func(p *Pod) { p.Affinity = inRack("rack1", "rack2") }},
		{name: "selector and affinity both needed", stay: []Node{rack2("b"), rack1("a2")},
			pod: func(p *Pod) {
				p.NodeSelector = map[string]string{"disk": "ssd"}
				p.Affinity = inRack("rack2")
			},
			pending: true, reason: "nodeSelector disk=ssd and required node affinity rackroll.io/rack In rack2 matches no node"},
		{name: "taint not tolerated", stay: []Node{rack2("b", dedicated)}, pod: func(*Pod) {},
			pending: true, reason: "tenant/p: no toleration for the taints of the nodes that stay up (dedicated=db:NoSchedule)"},
		{name: "NoExecute not tolerated", stay: []Node{rack2("b", evicting)}, pod: func(*Pod) {},
			pending: true, reason: "(maintenance:NoExecute)"},
		{name: "taint tolerated by Equal", stay: []Node{rack2("b", dedicated)},
			pod: func(p *Pod) {
				p.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db", Effect: corev1.TaintEffectNoSchedule}}
			}},
		{name: "taint tolerated by Exists", stay: []Node{rack2("b", dedicated)},
			pod: func(p *Pod) { p.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}} }},
		{name: "toleration of another value", stay: []Node{rack2("b", dedicated)},
			pod:     func(p *Pod) { p.Tolerations = []corev1.Toleration{{Key: "dedicated", Value: "web"}} },
			pending: true, reason: "dedicated=db:NoSchedule"},
		{name: "toleration of another effect", stay: []Node{rack2("b", dedicated)},
			pod: func(p *Pod) {
				p.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}
			},
			pending: true, reason: "dedicated=db:NoSchedule"},
		{name: "PreferNoSchedule only prefers", stay: []Node{rack2("b", corev1.Taint{Key: "x", Effect: corev1.TaintEffectPreferNoSchedule})}, pod: func(*Pod) {}},
		{name: "the untainted node that matches", stay: []Node{rack2("b", dedicated), rack1("a2")}, pod: func(p *Pod) { p.Affinity = inRack("rack1", "rack2") }},
		{name: "matching node tainted", stay: []Node{rack2("b"), labelled(node("a2", 100, dedicated), "rackroll.io/rack", "rack1")},
			pod:     func(p *Pod) { p.NodeSelector = map[string]string{"rackroll.io/rack": "rack1"} },
			pending: true, reason: "nodeSelector rackroll.io/rack=rack1 matches only nodes that stay up with taints it does not tolerate (dedicated=db:NoSchedule)"},
		{name: "bare pod", stay: []Node{rack2("b")}, pod: func(p *Pod) { p.Bare = true },
			unmovable: "tenant/p: no controller: the drain deletes it and nothing recreates it"},
		{name: "local storage", stay: []Node{rack2("b")}, pod: func(p *Pod) { p.LocalVolume = "data (pvc tenant/data-0)" },
			unmovable: "tenant/p: its volume data (pvc tenant/data-0) is local storage of its node"},
		{name: "DaemonSet pod not counted", stay: []Node{rack2("b", dedicated)},
			pod: func(p *Pod) { p.DaemonSet, p.Bare, p.NodeSelector = true, true, map[string]string{"nowhere": "x"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pod("p", "a", 1)
			tc.pod(&p)
			r := Check([]string{"a"}, append([]Node{rack1("a")}, tc.stay...), []Pod{p})
			require.Equal(t, !tc.pending && tc.unmovable == "", r.Fits(), r.Describe("rack1"))
			if tc.pending {
				require.Equal(t, []string{"tenant/p"}, r.Pending)
				require.Len(t, r.Reasons, 1)
				require.Contains(t, r.Reasons[0], tc.reason)
				require.Contains(t, r.Describe("rack1"), tc.reason)
			} else {
				require.Empty(t, r.Pending)
			}
			if tc.unmovable != "" {
				require.Equal(t, []string{tc.unmovable}, r.Unmovable)
				require.Zero(t, r.Evicted, "not counted as landing anywhere")
				require.Contains(t, r.Describe("rack1"), "1 pods cannot move: "+tc.unmovable)
			}
		})
	}
}

// Pods of one reason are named together; a pod short of room only has no
// reason beyond the shortfall.
func TestCapacityGroupsReasons(t *testing.T) {
	pinned := func(name string) Pod {
		p := pod(name, "a", 1)
		p.NodeSelector = map[string]string{"rackroll.io/rack": "rack1"}
		return p
	}
	big := pod("big", "a", 50)
	r := Check([]string{"a"}, []Node{labelled(node("a", 100), "rackroll.io/rack", "rack1"), node("b", 10)},
		[]Pod{pinned("p1"), pinned("p0"), big})
	require.Equal(t, []string{"tenant/big", "tenant/p0", "tenant/p1"}, r.Pending)
	require.Equal(t, []string{"tenant/p0, tenant/p1: nodeSelector rackroll.io/rack=rack1 matches no node that stays up"}, r.Reasons)
}
