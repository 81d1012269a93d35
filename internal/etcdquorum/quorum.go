// Package etcdquorum holds the pure arithmetic of etcd membership changes,
// shared by the control-plane gate and the etcd activities so both decide
// the same way. It follows Cluster API's KubeadmControlPlane
// (canSafelyRemoveEtcdMember): a removal is safe only if the healthy members
// left still form a quorum of the members left, and never below two members.
package etcdquorum

import (
	"fmt"
	"sort"
	"strings"
)

// MinMembers is the smallest member set a removal may leave (Cluster API
// refuses to go below two: one member has no redundancy left to lose).
const MinMembers = 2

// Member is what the arithmetic needs to know about one etcd member.
// Learners are not voters: they count neither toward the set nor quorum.
type Member struct {
	Name    string
	Healthy bool
	Learner bool
}

// Quorum is the number of voters that must agree in a set of n: n/2+1.
// Zero members need no quorum.
func Quorum(n int) int {
	if n <= 0 {
		return 0
	}
	return n/2 + 1
}

// Tolerance is how many of n voters may fail while quorum holds.
func Tolerance(n int) int {
	if n <= 0 {
		return 0
	}
	return n - Quorum(n)
}

// Voters counts the voting members and the healthy ones among them.
func Voters(members []Member) (total, healthy int) {
	for _, m := range members {
		if m.Learner {
			continue
		}
		total++
		if m.Healthy {
			healthy++
		}
	}
	return total, healthy
}

// HasQuorum reports whether the healthy voters are a quorum of all voters.
func HasQuorum(members []Member) bool {
	total, healthy := Voters(members)
	return healthy >= Quorum(total)
}

// CanRemove decides whether removing the member named target keeps the
// cluster safe. An absent target is allowed (removal is then a no-op). A
// learner may always go: it is not part of quorum. Otherwise the voters left
// must number at least MinMembers and their healthy ones at least their
// quorum. reason says why, in words fit for an operator, either way.
func CanRemove(members []Member, target string) (bool, string) {
	return CanRemoveKeeping(members, target, MinMembers)
}

// CanRemoveKeeping is CanRemove with the smallest member set allowed to
// stay: MinMembers, or 1 where the site's table runs one active KCP (two
// racks, docs/behaviour.md#placement) and that KCP's replacement has joined.
func CanRemoveKeeping(members []Member, target string, minMembers int) (bool, string) {
	var found *Member
	var rest []Member
	for i := range members {
		if members[i].Name == target && found == nil {
			found = &members[i]
			continue
		}
		rest = append(rest, members[i])
	}
	if found == nil {
		return true, fmt.Sprintf("%s is not an etcd member: nothing to remove", target)
	}
	if found.Learner {
		return true, fmt.Sprintf("%s is a learner: removing it does not change quorum", target)
	}
	total, healthy := Voters(rest)
	if total < max(minMembers, 1) {
		return false, fmt.Sprintf("removing %s would leave %d voting member(s), below the minimum of %d", target, total, max(minMembers, 1))
	}
	if q := Quorum(total); healthy < q {
		return false, fmt.Sprintf("removing %s would leave %d healthy of %d voting members (%s), below quorum %d",
			target, healthy, total, unhealthyNames(rest), q)
	}
	return true, fmt.Sprintf("removing %s leaves %d healthy of %d voting members (quorum %d)", target, healthy, total, Quorum(total))
}

// CanDisrupt decides whether target may be taken down for a while (restart,
// power-off) without removing it: every other voter healthy is Cluster API's
// preflight; at minimum quorum must hold with target counted as down.
// reason names the unhealthy members.
func CanDisrupt(members []Member, target string) (bool, string) {
	var others []Member
	total := 0
	for _, m := range members {
		if m.Learner {
			continue
		}
		total++
		if m.Name != target {
			others = append(others, m)
		}
	}
	if bad := unhealthyNames(others); bad != "" {
		return false, fmt.Sprintf("other etcd members unhealthy: %s", bad)
	}
	_, healthy := Voters(others)
	if q := Quorum(total); healthy < q {
		return false, fmt.Sprintf("taking %s down leaves %d healthy of %d voting members, below quorum %d", target, healthy, total, q)
	}
	return true, fmt.Sprintf("taking %s down leaves %d healthy of %d voting members (quorum %d)", target, healthy, total, Quorum(total))
}

func unhealthyNames(members []Member) string {
	var names []string
	for _, m := range members {
		if !m.Learner && !m.Healthy {
			names = append(names, m.Name)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
