package placement

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/model"
)

// Assignment is the role placement gives one server.
type Assignment struct {
	Name            string     `json:"name"`
	Rack            string     `json:"rack"`
	Role            model.Role `json:"role"`
	ManagementGroup string     `json:"managementGroup"` // "a", "b" or "" (not management)
}

// rack is placement's working state for one rack.
type rack struct {
	name    string
	servers []model.ServerSpec // natural order
	free    []string           // management servers not yet chosen, natural order
	kcp     int                // active KCPs placed here
}

// Place assigns roles following the rack-resiliency tables: 1 rack: three
// KCPs, no spare; 2 racks: KCP in rack 1, spare in rack 2; 3 racks: a KCP in
// each, spare in rack 1; 4 or more: KCPs in racks 1-3, spare in rack 4. Racks
// count in natural order. Pinned kcp/kcp-spare servers are honoured and fill
// the table first. When a designated rack has no free management server, the
// slot moves to the next rack (natural order, wrapping) with the fewest KCPs,
// so two KCPs share a rack only when unavoidable. The other management
// servers split into balanced groups a and b spread across racks.
func Place(inv *model.Inventory) ([]Assignment, error) {
	racks, err := loadRacks(inv)
	if err != nil {
		return nil, err
	}
	n := len(racks)
	active, spare := model.ControlPlaneSize(n)
	roles := map[string]model.Role{}
	kcpSlots, spareSlots := designated(n)

	var pinnedKCP, pinnedSpare int
	for i := range racks {
		for _, s := range racks[i].servers {
			switch s.Role {
			case model.RoleKCP:
				pinnedKCP++
				racks[i].kcp++
				kcpSlots = consume(kcpSlots, i)
			case model.RoleKCPSpare:
				pinnedSpare++
				spareSlots = consume(spareSlots, i)
			}
			roles[s.Name] = s.Role
		}
	}
	if pinnedKCP > active || pinnedSpare > spare {
		return nil, fmt.Errorf("%d kcp and %d kcp-spare pins, but %d racks have %d active KCPs and %d spare: remove pins",
			pinnedKCP, pinnedSpare, n, active, spare)
	}
	if err := enough(racks, len(kcpSlots)+len(spareSlots), active, spare); err != nil {
		return nil, err
	}

	// Designated racks first, so a fallback never takes a rack the table
	// wants for a later slot.
	var unfilled []int
	for _, r := range kcpSlots {
		if len(racks[r].free) > 0 && (racks[r].kcp == 0 || n == 1) {
			roles[racks[r].take()] = model.RoleKCP
			racks[r].kcp++
			continue
		}
		unfilled = append(unfilled, r)
	}
	for _, r := range unfilled {
		best := fallback(racks, r, false)
		roles[racks[best].take()] = model.RoleKCP
		racks[best].kcp++
	}
	for _, r := range spareSlots {
		best := fallback(racks, r, true)
		roles[racks[best].take()] = model.RoleKCPSpare
	}
	return assemble(racks, roles), nil
}

// designated lists the rack indexes the tables give each KCP and the spare.
func designated(n int) (kcp, spare []int) {
	switch {
	case n == 0:
		return nil, nil
	case n == 1:
		return []int{0, 0, 0}, nil
	case n == 2:
		return []int{0}, []int{1}
	case n == 3:
		return []int{0, 1, 2}, []int{0}
	}
	return []int{0, 1, 2}, []int{3}
}

// consume removes the slot a pin in rack r fills: r's own slot if the table
// has one, else the last slot, keeping the low racks as the table has them.
func consume(slots []int, r int) []int {
	if len(slots) == 0 {
		return slots
	}
	at := len(slots) - 1
	for i, s := range slots {
		if s == r {
			at = i
			break
		}
	}
	return append(slots[:at:at], slots[at+1:]...)
}

// fallback picks the rack for a slot designated to rack d: among racks with
// a free management server, those with the fewest KCPs; d itself if it is
// one of them and preferOwn, else the first after d in natural order.
func fallback(racks []rack, d int, preferOwn bool) int {
	best, min := -1, 0
	for k := range racks {
		r := (d + 1 + k) % len(racks) // d comes last
		if preferOwn {
			r = (d + k) % len(racks) // d comes first
		}
		if len(racks[r].free) == 0 {
			continue
		}
		if best < 0 || racks[r].kcp < min {
			best, min = r, racks[r].kcp
		}
	}
	return best
}

func (r *rack) take() string {
	name := r.free[0]
	r.free = r.free[1:]
	return name
}
