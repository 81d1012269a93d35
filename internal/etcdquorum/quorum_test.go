package etcdquorum

import (
	"strings"
	"testing"
)

func TestQuorumAndTolerance(t *testing.T) {
	for _, c := range []struct{ n, q, tol int }{
		{0, 0, 0}, {1, 1, 0}, {2, 2, 0}, {3, 2, 1}, {4, 3, 1}, {5, 3, 2}, {7, 4, 3},
	} {
		if got := Quorum(c.n); got != c.q {
			t.Errorf("Quorum(%d) = %d, want %d", c.n, got, c.q)
		}
		if got := Tolerance(c.n); got != c.tol {
			t.Errorf("Tolerance(%d) = %d, want %d", c.n, got, c.tol)
		}
	}
}

func ms(spec ...string) []Member {
	// "a" healthy voter, "a-" unhealthy voter, "a~" healthy learner.
	var out []Member
	for _, s := range spec {
		m := Member{Name: strings.TrimRight(s, "-~"), Healthy: !strings.HasSuffix(s, "-"), Learner: strings.HasSuffix(s, "~")}
		out = append(out, m)
	}
	return out
}

func TestHasQuorum(t *testing.T) {
	for _, c := range []struct {
		members []Member
		want    bool
	}{
		{ms("a", "b", "c"), true},
		{ms("a", "b", "c-"), true},
		{ms("a", "b-", "c-"), false},
		{ms("a"), true},
		{ms("a-"), false},
		{ms("a", "b-", "c-", "d~"), false}, // a learner is no vote
		{nil, true},
	} {
		if got := HasQuorum(c.members); got != c.want {
			t.Errorf("HasQuorum(%v) = %v, want %v", c.members, got, c.want)
		}
	}
}

// verdict is a case of a rule that answers yes or no with its reason.
type verdict struct {
	name    string
	members []Member
	target  string
	want    bool
	reason  string
}

func checkVerdicts(t *testing.T, rule string, decide func([]Member, string) (bool, string), cases []verdict) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, reason := decide(c.members, c.target)
			if got != c.want || !strings.Contains(reason, c.reason) {
				t.Errorf("%s = %v, %q; want %v, containing %q", rule, got, reason, c.want, c.reason)
			}
		})
	}
}

func TestCanRemove(t *testing.T) {
	checkVerdicts(t, "CanRemove", CanRemove, []verdict{
		{"absent is a no-op", ms("a", "b", "c"), "x", true, "not an etcd member"},
		{"three healthy, remove one", ms("a", "b", "c"), "c", true, "leaves 2 healthy of 2"},
		{"remove the unhealthy one", ms("a", "b", "c-"), "c", true, "leaves 2 healthy of 2"},
		{"remove a healthy one while another is down", ms("a", "b", "c-"), "a", false, "1 healthy of 2 voting members (c), below quorum 2"},
		{"two members left is the floor", ms("a", "b"), "b", false, "below the minimum of 2"},
		{"single member", ms("a"), "a", false, "leave 0 voting"},
		{"four, one down, remove a healthy", ms("a", "b", "c", "d-"), "a", true, "2 healthy of 3"},
		{"five, two down, remove healthy", ms("a", "b", "c", "d-", "e-"), "a", false, "below quorum 3"},
		{"learner always goes", ms("a", "b~"), "b", true, "learner"},
		{"learners do not count toward the floor", ms("a", "b", "c~"), "b", false, "below the minimum"},
	})
}

func TestCanDisrupt(t *testing.T) {
	checkVerdicts(t, "CanDisrupt", CanDisrupt, []verdict{
		{"all healthy", ms("a", "b", "c"), "a", true, "2 healthy of 3"},
		{"another is down", ms("a", "b-", "c"), "a", false, "unhealthy: b"},
		{"the target itself is down", ms("a-", "b", "c"), "a", true, "2 healthy of 3"},
		{"one-member site", ms("a"), "a", false, "0 healthy of 1"},
		{"two members", ms("a", "b"), "a", false, "1 healthy of 2"},
		{"five, one down elsewhere", ms("a", "b", "c", "d", "e-"), "a", false, "unhealthy: e"},
		{"learner ignored", ms("a", "b", "c", "d~"), "a", true, "2 healthy of 3"},
	})
}
