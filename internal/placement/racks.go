package placement

import (
	"fmt"
	"sort"

	"github.com/rackroll/rackroll/internal/model"
)

// loadRacks groups the inventory's servers by rack, racks and servers in
// natural order; racks without servers do not count.
func loadRacks(inv *model.Inventory) ([]rack, error) {
	byName := map[string]*rack{}
	var names []string
	for _, rs := range inv.Racks {
		for _, s := range rs.Servers {
			if !s.Role.Valid() {
				return nil, fmt.Errorf("server %s has unknown role %q: validate the inventory first", s.Name, s.Role)
			}
			r, ok := byName[rs.Name]
			if !ok {
				r = &rack{name: rs.Name}
				byName[rs.Name] = r
				names = append(names, rs.Name)
			}
			r.servers = append(r.servers, s)
		}
	}
	model.SortNatural(names)
	out := make([]rack, len(names))
	for i, n := range names {
		r := byName[n]
		sort.SliceStable(r.servers, func(a, b int) bool { return model.NaturalLess(r.servers[a].Name, r.servers[b].Name) })
		for _, s := range r.servers {
			if s.Role == model.RoleManagement {
				r.free = append(r.free, s.Name)
			}
		}
		out[i] = *r
	}
	return out, nil
}

// enough checks there are free management servers for the open slots.
func enough(racks []rack, open, active, spare int) error {
	free := 0
	for _, r := range racks {
		free += len(r.free)
	}
	if free >= open {
		return nil
	}
	pool := free + active + spare - open
	return fmt.Errorf("placement needs %d management servers for %d racks (%d KCP + %d spare), found %d: add %d",
		active+spare, len(racks), active, spare, pool, open-free)
}

// assemble lists every server with its role, racks and servers in natural
// order, and splits the remaining management servers into groups.
func assemble(racks []rack, roles map[string]model.Role) []Assignment {
	groups := splitGroups(racks)
	var out []Assignment
	for _, r := range racks {
		for _, s := range r.servers {
			out = append(out, Assignment{Name: s.Name, Rack: r.name, Role: roles[s.Name], ManagementGroup: groups[s.Name]})
		}
	}
	return out
}
