package placement

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBalanceFailureDomains(t *testing.T) {
	for _, tc := range []struct {
		name     string
		domains  []string
		machines int
		want     []string
	}{
		{"one machine per domain", []string{"a", "b", "c"}, 3, []string{"a", "b", "c"}},
		{"domains taken alphabetically", []string{"zone-c", "zone-a", "zone-b"}, 3, []string{"zone-a", "zone-b", "zone-c"}},
		{"fewer domains: reuse alphabetically", []string{"b", "a"}, 3, []string{"a", "b", "a"}},
		{"fewer domains, five machines", []string{"b", "a"}, 5, []string{"a", "b", "a", "b", "a"}},
		{"one domain", []string{"only"}, 3, []string{"only", "only", "only"}},
		{"more domains than machines", []string{"e", "d", "c", "b", "a"}, 3, []string{"a", "b", "c"}},
		{"no domains: single default domain", nil, 3, []string{"", "", ""}},
		{"empty names are not domains", []string{"", ""}, 2, []string{"", ""}},
		{"duplicates count once", []string{"a", "a", "b"}, 3, []string{"a", "b", "a"}},
		{"no machines", []string{"a"}, 0, nil},
	} {
		assert.Equal(t, tc.want, BalanceFailureDomains(tc.domains, tc.machines), tc.name)
	}
}

func TestRebalance(t *testing.T) {
	for _, tc := range []struct {
		name             string
		current, domains []string
		want             []Move
	}{
		{"balanced already", []string{"a", "b", "c"}, []string{"a", "b", "c"}, nil},
		{"reuse is balanced", []string{"a", "b", "a"}, []string{"a", "b"}, nil},
		{"a domain added", []string{"a", "b", "a"}, []string{"a", "b", "c"},
			[]Move{{Machine: 2, From: "a", To: "c"}}},
		{"from one domain to two", []string{"a", "a", "a"}, []string{"a", "b"},
			[]Move{{Machine: 2, From: "a", To: "b"}}},
		{"extra stays where machines are", []string{"b", "b", "b"}, []string{"a", "b"},
			[]Move{{Machine: 2, From: "b", To: "a"}}},
		{"from the default domain", []string{"", "", ""}, []string{"c", "b", "a"},
			[]Move{{Machine: 0, From: "", To: "a"}, {Machine: 1, From: "", To: "b"}, {Machine: 2, From: "", To: "c"}}},
		{"a domain removed", []string{"a", "b", "c"}, []string{"a", "b"},
			[]Move{{Machine: 2, From: "c", To: "a"}}},
		{"all domains removed", []string{"a", "b"}, nil,
			[]Move{{Machine: 0, From: "a", To: ""}, {Machine: 1, From: "b", To: ""}}},
		{"more domains than machines", []string{"a", "a", "a"}, []string{"e", "d", "c", "b", "a"},
			[]Move{{Machine: 1, From: "a", To: "b"}, {Machine: 2, From: "a", To: "c"}}},
		{"five machines, third domain", []string{"a", "a", "b", "a", "b"}, []string{"a", "b", "c"},
			[]Move{{Machine: 3, From: "a", To: "c"}}},
		{"no machines", nil, []string{"a"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			moves := Rebalance(tc.current, tc.domains)
			assert.Equal(t, tc.want, moves)
			assertBalanced(t, apply(tc.current, moves), tc.domains)
		})
	}
}

func apply(current []string, moves []Move) []string {
	out := append([]string(nil), current...)
	for _, m := range moves {
		out[m.Machine] = m.To
	}
	return out
}

// assertBalanced: every machine in a listed domain, sizes within one.
func assertBalanced(t *testing.T, spread, domains []string) {
	t.Helper()
	d := uniqueSorted(domains)
	if len(d) == 0 {
		d = []string{""}
	}
	count := map[string]int{}
	for _, s := range spread {
		assert.Contains(t, d, s)
		count[s]++
	}
	lo, hi := len(spread), 0
	for _, name := range d {
		lo, hi = min(lo, count[name]), max(hi, count[name])
	}
	if len(spread) > 0 {
		assert.LessOrEqual(t, hi-lo, 1, "%v over %v", spread, d)
	}
}
