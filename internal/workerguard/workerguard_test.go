package workerguard

import (
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	const node, sel = "rack1-c1", "app.kubernetes.io/name=rackroll-worker"
	w := func(name, n string, ready bool) Pod {
		return Pod{Namespace: "rackroll", Name: name, Node: n, Ready: ready}
	}
	for _, tc := range []struct {
		name string
		pods []Pod
		keep string   // "" when nothing is kept
		says []string // in the reason
	}{
		{name: "no workers in the cluster", pods: nil},
		{name: "no worker on the node", pods: []Pod{w("a", "rack2-c1", true)}},
		{name: "another Ready worker elsewhere", pods: []Pod{w("a", node, true), w("b", "mgmt1", true)}},
		{name: "another Ready worker on a cordoned node counts", pods: []Pod{w("a", node, true), w("b", "rack1-c2", true)}},
		{name: "only a not-Ready worker here", pods: []Pod{w("a", node, false)}},
		{name: "the last Ready worker", pods: []Pod{w("a", node, true)}, keep: "rackroll/a",
			says: []string{"pod rackroll/a on node rack1-c1", "last Ready rackroll worker", sel}},
		{name: "the other is not Ready", pods: []Pod{w("a", node, true), w("b", "mgmt1", false), w("c", "", false)}, keep: "rackroll/a",
			says: []string{"pod rackroll/a", "not Ready: rackroll/b on mgmt1, rackroll/c on no node"}},
		{name: "both on the node: one is kept, the other goes", pods: []Pod{w("b", node, true), w("a", node, true)}, keep: "rackroll/a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Judge(tc.pods, node, sel)
			if tc.keep == "" {
				if len(v.Keep) != 0 || v.Reason != "" {
					t.Fatalf("kept %+v: %s", v.Keep, v.Reason)
				}
				return
			}
			if len(v.Keep) != 1 || v.Keep[0].key() != tc.keep {
				t.Fatalf("kept %+v, want %s", v.Keep, tc.keep)
			}
			for _, s := range tc.says {
				if !strings.Contains(v.Reason, s) {
					t.Errorf("reason %q lacks %q", v.Reason, s)
				}
			}
		})
	}
}
