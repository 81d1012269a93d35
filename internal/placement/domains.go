package placement

import (
	"sort"
)

// BalanceFailureDomains spreads machines over failure domains the way a
// control plane machine set does: each domain used equally, and when there
// are fewer domains than machines the extra machines reuse domains
// alphabetically by name. With no domains every machine goes to the single
// default domain "". Empty and repeated names are ignored.
func BalanceFailureDomains(domains []string, machines int) []string {
	if machines <= 0 {
		return nil
	}
	d := uniqueSorted(domains)
	out := make([]string, machines)
	if len(d) == 0 {
		return out
	}
	for i := range out {
		out[i] = d[i%len(d)]
	}
	return out
}

// Move sends one machine (an index into the current spread) to a domain.
type Move struct {
	Machine int    `json:"machine"`
	From    string `json:"from"`
	To      string `json:"to"`
}

// Rebalance says which machines move so that current (each machine's
// domain) is balanced over domains again, for example after domains were
// added: domain sizes end up differing by at most one, with the fewest moves.
// The extra machines stay where most machines already are (alphabetical on
// ties) because moving them buys no balance; machines in domains no longer
// listed always move. Moves are ordered by machine, lowest indexes staying.
func Rebalance(current []string, domains []string) []Move {
	d := uniqueSorted(domains)
	if len(d) == 0 {
		d = []string{""}
	}
	have := map[string]int{}
	for _, c := range current {
		have[c]++
	}
	byHeld := append([]string(nil), d...)
	sort.SliceStable(byHeld, func(i, j int) bool { return have[byHeld[i]] > have[byHeld[j]] })
	target := map[string]int{}
	for i, name := range byHeld {
		target[name] = len(current) / len(d)
		if i < len(current)%len(d) {
			target[name]++
		}
	}

	kept := map[string]int{}
	var movers []int
	for i, c := range current {
		if t, ok := target[c]; ok && kept[c] < t {
			kept[c]++
			continue
		}
		movers = append(movers, i)
	}
	var moves []Move
	for _, name := range d {
		for ; kept[name] < target[name]; kept[name]++ {
			i := movers[0]
			movers = movers[1:]
			moves = append(moves, Move{Machine: i, From: current[i], To: name})
		}
	}
	sort.Slice(moves, func(i, j int) bool { return moves[i].Machine < moves[j].Machine })
	return moves
}

func uniqueSorted(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
