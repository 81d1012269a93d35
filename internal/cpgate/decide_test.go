package cpgate

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
)

var now = time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC)

// site builds a ledger: name:role pairs; node names are "n-"+name.
func site(spec ...string) model.Cluster {
	c := model.Cluster{Name: "lab"}
	for _, s := range spec {
		name, role, _ := strings.Cut(s, ":")
		c.BMMs = append(c.BMMs, model.BMM{Name: name, NodeName: "n-" + name, Roles: []model.Role{model.Role(role)}})
	}
	return c
}

func ready(bmm string) Node {
	return Node{BMM: bmm, Node: "n-" + bmm, Exists: true, Ready: model.ReadyTrue, SeenAt: now.Add(-2 * time.Second)}
}

func with(n Node, f func(*Node)) Node { f(&n); return n }

func unknown(bmm string) Node {
	return with(ready(bmm), func(n *Node) {
		n.Ready, n.Reason, n.ReadySince = model.ReadyUnknown, "NodeStatusUnknown", now.Add(-5*time.Minute)
	})
}

func healthyEtcd(leader string, names ...string) *Etcd {
	e := &Etcd{SeenAt: now.Add(-time.Second)}
	for _, n := range names {
		e.Members = append(e.Members, EtcdMember{Name: "n-" + n, Healthy: true, Leader: n == leader})
	}
	return e
}

var three = site("m1:kcp", "m2:kcp", "m3:kcp")

func TestDecide(t *testing.T) {
	cases := []struct {
		name string
		in   Input
		want Outcome
		// server the decision names, and words its reason must carry.
		server string
		words  []string
	}{
		{name: "three members, all healthy: allowed", want: Allow,
			in: Input{Target: "m1", Operation: lease.OpRestart, Cluster: three,
				Observed: Observation{Nodes: []Node{ready("m1"), ready("m2"), ready("m3")}}}},
		{name: "three members, one Unknown: refused naming it, its condition and when seen", want: Refuse, server: "m2",
			words: []string{"m2", "Ready=Unknown", "NodeStatusUnknown", "since 2026-11-22T22:55:00Z", "seen at 2026-11-22T22:59:58Z"},
			in: Input{Target: "m1", Operation: lease.OpRestart, Cluster: three,
				Observed: Observation{Nodes: []Node{ready("m1"), unknown("m2"), ready("m3")}}}},
		{name: "another member's root filesystem read-only: refused", want: Refuse, server: "m3", words: []string{"root filesystem read-only"},
			in: Input{Target: "m1", Operation: lease.OpReimage, Cluster: three,
				Observed: Observation{Nodes: []Node{ready("m1"), ready("m2"), with(ready("m3"), func(n *Node) { n.ReadOnlyRootFS = true })}}}},
		{name: "another member's node missing: refused", want: Refuse, server: "m3", words: []string{"does not exist"},
			in: Input{Target: "m1", Operation: lease.OpPowerOff, Cluster: three,
				Observed: Observation{Nodes: []Node{ready("m1"), ready("m2"), {BMM: "m3", Node: "n-m3", SeenAt: now}}}}},
		{name: "the target itself sick (remediation mends it): allowed", want: Allow,
			in: Input{Target: "m2", Operation: lease.OpRemediation, Cluster: three,
				Observed: Observation{Nodes: []Node{ready("m1"), unknown("m2"), ready("m3")}}}},
		{name: "stale observation: refused as stale", want: Refuse, words: []string{"stale", "limit 30s", "observe again"},
			in: Input{Target: "m1", Operation: lease.OpUpgrade, Cluster: three,
				Observed: Observation{Nodes: []Node{ready("m1"), with(ready("m2"), func(n *Node) { n.SeenAt = now.Add(-45 * time.Second) }), ready("m3")}}}},
		{name: "a member not observed: refused", want: Refuse, server: "m3", words: []string{"not observed"},
			in: Input{Target: "m1", Operation: lease.OpRestart, Cluster: three, Observed: Observation{Nodes: []Node{ready("m1"), ready("m2")}}}},
		{name: "not disruptive: allowed without an observation", want: Allow,
			in: Input{Target: "m1", Operation: lease.OpCordon, Cluster: three}},
		{name: "compute target: allowed without an observation", want: Allow,
			in: Input{Target: "c1", Operation: lease.OpReimage, Cluster: site("m1:kcp", "m2:kcp", "m3:kcp", "c1:compute")}},
		{name: "the target leads etcd: move leadership first, to a healthy member", want: MoveLeader, server: "m1", words: []string{"move etcd leadership to n-m2"},
			in: Input{Target: "m1", Operation: lease.OpRestart, Cluster: three,
				Observed: Observation{Nodes: []Node{ready("m1"), ready("m2"), ready("m3")}, Etcd: healthyEtcd("m1", "m1", "m2", "m3")}}},
		{name: "another member leads etcd: allowed", want: Allow,
			in: Input{Target: "m1", Operation: lease.OpRestart, Cluster: three,
				Observed: Observation{Nodes: []Node{ready("m1"), ready("m2"), ready("m3")}, Etcd: healthyEtcd("m3", "m1", "m2", "m3")}}},
		{name: "an etcd member unhealthy while its node is Ready: refused naming its server", want: Refuse, server: "m3", words: []string{"etcd member n-m3", "connection refused"},
			in: Input{Target: "m1", Operation: lease.OpRestart, Cluster: three,
				Observed: Observation{Nodes: []Node{ready("m1"), ready("m2"), ready("m3")}, Etcd: func() *Etcd {
					e := healthyEtcd("m2", "m1", "m2", "m3")
					e.Members[2].Healthy, e.Members[2].Err = false, "connection refused"
					return e
				}()}}},
		{name: "an etcd alarm: refused", want: Refuse, words: []string{"NOSPACE"},
			in: Input{Target: "m1", Operation: lease.OpRestart, Cluster: three,
				Observed: Observation{Nodes: []Node{ready("m1"), ready("m2"), ready("m3")}, Etcd: func() *Etcd {
					e := healthyEtcd("m2", "m1", "m2", "m3")
					e.Alarms = []string{"NOSPACE on n-m2"}
					return e
				}()}}},
		{name: "etcd unreachable: refused", want: Refuse, words: []string{"etcd could not be read", "deadline exceeded"},
			in: Input{Target: "m1", Operation: lease.OpRestart, Cluster: three,
				Observed: Observation{Nodes: []Node{ready("m1"), ready("m2"), ready("m3")}, Etcd: &Etcd{SeenAt: now, Err: "context deadline exceeded"}}}},
		{name: "an etcd member with no KCP behind it counts unhealthy: refused", want: Refuse, server: "n-old", words: []string{"no healthy control-plane node"},
			in: Input{Target: "m1", Operation: lease.OpRestart, Cluster: three,
				Observed: Observation{Nodes: []Node{ready("m1"), ready("m2"), ready("m3")}, Etcd: healthyEtcd("m2", "m1", "m2", "m3", "old")}}},
		{name: "one-member site (two racks: one KCP + spare): the lone KCP may go", want: Allow, words: []string{"only active KCP"},
			in: Input{Target: "m1", Operation: lease.OpUpgrade, Cluster: site("m1:kcp", "s1:kcp-spare"),
				Observed: Observation{Nodes: []Node{ready("m1")}, Etcd: healthyEtcd("m1", "m1")}}},
		{name: "one-member site: the spare is no member, restarting it is allowed even with the KCP Unknown", want: Allow,
			in: Input{Target: "s1", Operation: lease.OpRestart, Cluster: site("m1:kcp", "s1:kcp-spare"),
				Observed: Observation{Nodes: []Node{unknown("m1")}}}},
		{name: "two-rack upgrade: the old KCP retires once the upgraded spare has joined: allowed", want: Allow,
			in: Input{Target: "m1", Operation: lease.OpUpgrade, Removes: true, Cluster: site("m1:kcp", "s1:kcp"),
				Observed: Observation{Nodes: []Node{ready("m1"), ready("s1")}, Etcd: healthyEtcd("s1", "m1", "s1")}}},
		{name: "two-rack upgrade: the old KCP may not retire while the joined spare is Unknown", want: Refuse, server: "s1",
			in: Input{Target: "m1", Operation: lease.OpUpgrade, Removes: true, Cluster: site("m1:kcp", "s1:kcp"),
				Observed: Observation{Nodes: []Node{ready("m1"), unknown("s1")}}}},
		{name: "taken down for a while, two members cannot spare one: refused below quorum", want: Refuse, words: []string{"below quorum 2"},
			in: Input{Target: "m1", Operation: lease.OpRestart, Cluster: site("m1:kcp", "s1:kcp"),
				Observed: Observation{Nodes: []Node{ready("m1"), ready("s1")}}}},
		{name: "the last member cannot retire", want: Refuse, words: []string{"m1 is the last member"},
			in: Input{Target: "m1", Operation: lease.OpUpgrade, Removes: true, Cluster: site("m1:kcp", "m2:kcp"),
				Observed: Observation{Nodes: []Node{ready("m1"), ready("m2")}, Etcd: healthyEtcd("m1", "m1")}}},
		{name: "four members (spare joined) retire one: removal keeps quorum of three", want: Allow,
			in: Input{Target: "m3", Operation: lease.OpUpgrade, Removes: true, Cluster: site("m1:kcp", "m2:kcp", "m3:kcp", "s1:kcp"),
				Observed: Observation{Nodes: []Node{ready("m1"), ready("m2"), ready("m3"), ready("s1")}, Etcd: healthyEtcd("m1", "m1", "m2", "m3", "s1")}}},
		{name: "the spare being promoted, itself Unknown: refused naming the spare", want: Refuse, server: "s1", words: []string{"the spare s1 is not fit to promote", "Ready=Unknown"},
			in: Input{Target: "s1", Operation: lease.OpFailover, Promote: true, Replacing: "m2", Cluster: site("m1:kcp", "m2:kcp", "m3:kcp", "s1:kcp-spare"),
				Observed: Observation{Nodes: []Node{ready("m1"), unknown("m2"), ready("m3"), unknown("s1")}}}},
		{name: "the spare being promoted, healthy, in place of a failed KCP: allowed", want: Allow,
			in: Input{Target: "s1", Operation: lease.OpFailover, Promote: true, Replacing: "m2", Cluster: site("m1:kcp", "m2:kcp", "m3:kcp", "s1:kcp-spare"),
				Observed: Observation{Nodes: []Node{ready("m1"), unknown("m2"), ready("m3"), ready("s1")}, Etcd: healthyEtcd("m1", "m1", "m3")}}},
		{name: "the spare being promoted while another KCP is also down: refused naming it", want: Refuse, server: "m3",
			in: Input{Target: "s1", Operation: lease.OpFailover, Promote: true, Replacing: "m2", Cluster: site("m1:kcp", "m2:kcp", "m3:kcp", "s1:kcp-spare"),
				Observed: Observation{Nodes: []Node{ready("m1"), unknown("m2"), unknown("m3"), ready("s1")}}}},
		{name: "the spare being promoted with no node yet (deprovisioned): allowed, promotion provisions it", want: Allow,
			in: Input{Target: "s1", Operation: lease.OpFailover, Promote: true, Replacing: "m2", Cluster: site("m1:kcp", "m2:kcp", "m3:kcp", "s1:kcp-spare"),
				Observed: Observation{Nodes: []Node{ready("m1"), unknown("m2"), ready("m3"), {BMM: "s1", Node: "n-s1", SeenAt: now}}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Now = now
			got := Decide(tc.in)
			if got.Outcome != tc.want {
				t.Fatalf("outcome %s, want %s (reason: %s)", got.Outcome, tc.want, got.Reason)
			}
			if got.Server != tc.server && tc.want != Allow {
				t.Errorf("server %q, want %q (reason: %s)", got.Server, tc.server, got.Reason)
			}
			for _, w := range tc.words {
				if !strings.Contains(got.Reason, w) {
					t.Errorf("reason %q lacks %q", got.Reason, w)
				}
			}
			if (got.Err() == nil) != got.Allowed() {
				t.Errorf("Err() %v disagrees with outcome %s", got.Err(), got.Outcome)
			}
		})
	}
}
