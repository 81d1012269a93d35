package reliability

import (
	"fmt"
	"sort"
	"testing"

	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
)

// siteOf describes the site as registration placed it, for
// invariants.Check.
func siteOf(t *testing.T, s *site) invariants.Site {
	t.Helper()
	is, err := invariants.SiteFromInventory(s.Inventory)
	if err != nil {
		t.Fatal(err)
	}
	// A site without a spare (one rack: three KCPs) upgrades its KCPs in
	// place, one at a time, so its floor of serving KCPs is one lower.
	kcps, spare := 0, false
	for _, r := range is.Roles {
		kcps += map[bool]int{true: 1}[r == model.RoleKCP]
		spare = spare || r == model.RoleKCPSpare
	}
	if !spare && kcps > 1 {
		is.ActiveKCP = kcps - 1
	}
	return is
}

// checkInvariants replays the lab's event log against the site and
// records the number of violations.
func checkInvariants(t *testing.T, s *site, scenario string, is invariants.Site) {
	t.Helper()
	evs, err := events.ReadFile(s.EventsPath)
	if err != nil {
		t.Fatal(err)
	}
	v := invariants.Check(evs, is)
	for _, x := range v {
		t.Log("invariant:", x)
	}
	check(t, scenario+": invariant violations", "0", fmt.Sprint(len(v)), len(v) == 0)
}

// reimagedOnce compares the lab's reimage counts with want(name): good
// counts the BMMs that should be reimaged (want > 0) and were exactly that
// often; bad lists every BMM off its count.
func reimagedOnce(counts map[string]int, want func(string) int) (good, total int, bad []string) {
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w := want(n)
		if w > 0 {
			total++
		}
		switch {
		case counts[n] != w:
			bad = append(bad, fmt.Sprintf("%s=%d (want %d)", n, counts[n], w))
		case w > 0:
			good++
		}
	}
	return good, total, bad
}
