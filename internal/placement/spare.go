package placement

import (
	"fmt"
	"sort"

	"github.com/rackroll/rackroll/internal/model"
)

// ChooseNewSpare picks the management server that becomes the new KCP spare
// when failedKCP is swapped out (the old spare becomes an active KCP). It
// works on the ledger before or after the swap: active KCPs are the BMMs
// with role kcp or kcp-spare other than failedKCP. Candidates are healthy
// BMMs with role management only; the pick is in the rack with the fewest
// active KCPs, ties broken by natural rack then server order. failedKCP may
// be empty (a spare is simply missing) or the lost spare itself.
func ChooseNewSpare(bmms []model.BMM, failedKCP string) (string, error) {
	found := failedKCP == ""
	kcps := map[string]int{}
	for _, b := range bmms {
		if b.Name == failedKCP {
			found = true
			continue
		}
		if b.HasRole(model.RoleKCP) || b.HasRole(model.RoleKCPSpare) {
			kcps[b.Rack]++
		}
	}
	if !found {
		return "", fmt.Errorf("failed KCP %s is not a BMM of this cluster", failedKCP)
	}
	var cands []model.BMM
	management := 0
	for _, b := range bmms {
		if b.Name == failedKCP || !b.HasRole(model.RoleManagement) ||
			b.HasRole(model.RoleKCP) || b.HasRole(model.RoleKCPSpare) {
			continue
		}
		management++
		if b.Healthy() {
			cands = append(cands, b)
		}
	}
	if len(cands) == 0 {
		return "", fmt.Errorf("no healthy management server can become the new spare: %d management servers, none Ready without the unhealthy mark; replace or repair one", management)
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if kcps[a.Rack] != kcps[b.Rack] {
			return kcps[a.Rack] < kcps[b.Rack]
		}
		if a.Rack != b.Rack {
			return model.NaturalLess(a.Rack, b.Rack)
		}
		return model.NaturalLess(a.Name, b.Name)
	})
	return cands[0].Name, nil
}
