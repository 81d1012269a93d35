package cpgate

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/etcdquorum"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
)

// Decide answers whether in.Target may be disrupted now. Rules, in order:
//   - an operation that is not disruptive, or a target that is not a
//     control-plane member (and not the spare being promoted), is allowed
//     without looking further;
//   - every observation used must be at most MaxAge old, and every member
//     observed; otherwise refused as stale or missing;
//   - the spare being promoted must itself be fit (Ready, root filesystem
//     writable) unless it has no node yet (promotion provisions it);
//   - every other member must be healthy: node Ready, root filesystem
//     writable, not marked Unhealthy, its etcd member healthy; no etcd
//     alarm; and the members left must keep quorum (etcdquorum);
//   - the target leading etcd is moved first (MoveLeader).
//
// A site with a single member (two racks) has no quorum to keep: the lone
// KCP may be disrupted, and the API is down until it is back.
func Decide(in Input) Decision {
	if !in.Operation.Disruptive() {
		return allow("%s is not a disruption", in.Operation)
	}
	members := lease.ControlPlane(in.Cluster)
	if !in.Promote && !slices.Contains(members, in.Target) {
		return allow("%s is not a control-plane member", in.Target)
	}
	maxAge := in.MaxAge
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	// Who is checked: every member but the one being disrupted or replaced,
	// plus the spare being promoted.
	down := in.Target
	if in.Promote {
		down = in.Replacing
	}
	nodes := map[string]Node{}
	for _, n := range in.Observed.Nodes {
		nodes[n.BMM] = n
	}
	check := slices.DeleteFunc(slices.Clone(members), func(m string) bool { return m == down })
	if in.Promote {
		check = append([]string{in.Target}, check...)
	}
	for _, m := range check {
		n, ok := nodes[m]
		if !ok {
			return refuse(m, "control-plane member %s was not observed", m)
		}
		if age := in.Now.Sub(n.SeenAt); age > maxAge {
			return refuse("", "the observation of %s is stale (seen at %s, %s old, limit %s): observe again",
				m, stamp(n.SeenAt), age.Round(time.Second), maxAge)
		}
	}
	if e := in.Observed.Etcd; e != nil && !lone(members, in) {
		if age := in.Now.Sub(e.SeenAt); age > maxAge {
			return refuse("", "the etcd observation is stale (seen at %s, %s old, limit %s): observe again",
				stamp(e.SeenAt), age.Round(time.Second), maxAge)
		}
	}
	if in.Promote {
		if n := nodes[in.Target]; n.Exists {
			if bad := sick(n); bad != "" {
				return refuse(in.Target, "the spare %s is not fit to promote: %s, seen at %s", in.Target, bad, stamp(n.SeenAt))
			}
		}
	}
	for _, m := range check {
		if m == in.Target {
			continue
		}
		n := nodes[m]
		if b, ok := in.Cluster.BMM(m); ok && b.MarkedUnhealthy() {
			return refuse(m, "control-plane member %s is marked Unhealthy", m)
		}
		if bad := sick(n); bad != "" {
			return refuse(m, "control-plane member %s is unhealthy: %s, seen at %s",
				m, bad, stamp(n.SeenAt))
		}
	}
	if lone(members, in) {
		return allow("%s is the only active KCP: a single-member control plane has no quorum to keep; the API is down until it is back", in.Target)
	}
	// The node view's quorum: it holds when etcd is not exposed, and it is
	// what a site without etcd access can know.
	var byNode []etcdquorum.Member
	for _, m := range members {
		if m == in.Target && in.Promote {
			continue
		}
		n := nodes[m]
		byNode = append(byNode, etcdquorum.Member{Name: m, Healthy: m != down && sick(n) == ""})
	}
	if ok, why := keepsQuorum(byNode, down, in); !ok {
		return refuse("", "%s", why)
	}
	if in.Observed.Etcd != nil {
		return decideEtcd(in, nodeOf(in.Cluster, down))
	}
	return allow("every other control-plane member is healthy (observed at %s)", stamp(oldest(in.Observed.Nodes)))
}

// decideEtcd applies the etcd rules; downNode is the etcd member name of
// the server going down ("" when it has none).
func decideEtcd(in Input, downNode string) Decision {
	e := in.Observed.Etcd
	if e.Err != "" {
		return refuse("", "etcd could not be read (%s), seen at %s", e.Err, stamp(e.SeenAt))
	}
	if len(e.Alarms) > 0 {
		return refuse("", "etcd alarms raised: %s, seen at %s", strings.Join(e.Alarms, "; "), stamp(e.SeenAt))
	}
	// A member is healthy when etcd says so and its KCP's node is healthy
	// (Cluster API counts members without a healthy machine as unhealthy).
	healthyNode := map[string]bool{}
	for _, n := range in.Observed.Nodes {
		healthyNode[n.Node] = sick(n) == ""
	}
	var ms []etcdquorum.Member
	for _, m := range e.Members {
		ok := m.Healthy && (m.Name == downNode || healthyNode[m.Name])
		if !ok && m.Name != downNode && !m.Learner {
			why := m.Err
			if why == "" && m.Healthy {
				why = "no healthy control-plane node of that name"
			}
			return refuse(bmmOf(in.Cluster, m.Name), "etcd member %s is unhealthy (%s), seen at %s",
				m.Name, why, stamp(e.SeenAt))
		}
		ms = append(ms, etcdquorum.Member{Name: m.Name, Healthy: ok, Learner: m.Learner})
	}
	if ok, why := keepsQuorum(ms, downNode, in); !ok {
		return refuse("", "%s", why)
	}
	if in.Promote {
		return allow("etcd healthy without %s (observed at %s)", in.Replacing, stamp(e.SeenAt))
	}
	for _, m := range e.Members {
		if m.Name != downNode || !m.Leader {
			continue
		}
		var to []string
		for _, o := range e.Members {
			if o.Name != downNode && o.Healthy && !o.Learner {
				to = append(to, o.Name)
			}
		}
		model.SortNatural(to)
		if len(to) > 0 {
			return Decision{Outcome: MoveLeader, Server: in.Target, MoveLeaderTo: to[0],
				Reason: fmt.Sprintf("%s leads etcd: move etcd leadership to %s first, then disrupt it", in.Target, to[0])}
		}
	}
	return allow("every other control-plane member and etcd member is healthy (observed at %s)", stamp(e.SeenAt))
}

// keepsQuorum applies the arithmetic for the kind of disruption: a member
// taken down for a while must leave a quorum of the whole set (CanDisrupt);
// a member leaving for good must leave a quorum of the members that stay
// (CanRemove), down to the one member a two-rack site runs (see
// docs/behaviour.md#placement), never to none. The spare's promotion adds a member: the checks of
// every other member suffice.
func keepsQuorum(ms []etcdquorum.Member, down string, in Input) (bool, string) {
	switch {
	case in.Promote:
		return true, ""
	case !in.Removes:
		return etcdquorum.CanDisrupt(ms, down)
	}
	total, _ := etcdquorum.Voters(ms)
	if present := slices.ContainsFunc(ms, func(m etcdquorum.Member) bool { return m.Name == down && !m.Learner }); present {
		total--
	}
	if total < 1 {
		return false, fmt.Sprintf("%s is the last member: the control plane cannot lose it", in.Target)
	}
	if total >= etcdquorum.MinMembers {
		return etcdquorum.CanRemove(ms, down)
	}
	return true, "" // one healthy member stays: a two-rack site's control plane""
}

// lone: the target is the only member (a two-rack site), nothing to keep.
func lone(members []string, in Input) bool {
	return !in.Promote && len(members) == 1 && members[0] == in.Target
}

// sick says what is wrong with a node, "" when it serves.
func sick(n Node) string {
	switch {
	case !n.Exists:
		return "node " + orName(n) + " does not exist"
	case n.Ready != model.ReadyTrue:
		r := n.Ready
		if r == "" {
			r = "not reported"
		}
		s := fmt.Sprintf("node %s Ready=%s", orName(n), r)
		if n.Reason != "" {
			s += " (" + n.Reason + ")"
		}
		if !n.ReadySince.IsZero() {
			s += " since " + stamp(n.ReadySince)
		}
		return s
	case n.ReadOnlyRootFS:
		s := fmt.Sprintf("node %s root filesystem read-only", orName(n))
		if !n.ReadOnlySince.IsZero() {
			s += " since " + stamp(n.ReadOnlySince)
		}
		return s
	}
	return ""
}

func orName(n Node) string {
	if n.Node != "" {
		return n.Node
	}
	return n.BMM
}

func nodeOf(c model.Cluster, bmm string) string {
	if b, ok := c.BMM(bmm); ok {
		return b.NodeName
	}
	return ""
}

func bmmOf(c model.Cluster, node string) string {
	for _, b := range c.BMMs {
		if b.NodeName == node {
			return b.Name
		}
	}
	return node
}

func oldest(ns []Node) time.Time {
	var t time.Time
	for _, n := range ns {
		if t.IsZero() || (!n.SeenAt.IsZero() && n.SeenAt.Before(t)) {
			t = n.SeenAt
		}
	}
	return t
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func allow(format string, args ...any) Decision {
	return Decision{Outcome: Allow, Reason: fmt.Sprintf(format, args...)}
}

func refuse(server, format string, args ...any) Decision {
	return Decision{Outcome: Refuse, Server: server, Reason: fmt.Sprintf(format, args...)}
}
