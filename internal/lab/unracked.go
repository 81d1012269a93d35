package lab

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
)

// unrackedNames resolves lab.unracked (racks or servers) to the servers
// not racked when the lab starts.
func (l *Spec) unrackedNames(inv *model.Inventory) map[string]bool {
	out := map[string]bool{}
	if l == nil {
		return out
	}
	for _, ref := range inv.Servers() {
		if slices.Contains(l.Unracked, ref.Rack) || slices.Contains(l.Unracked, ref.Server.Name) {
			out[ref.Server.Name] = true
		}
	}
	return out
}

// validateUnracked checks lab.unracked: each entry a rack or server of the
// inventory, once; no server that pins a control-plane role (a server
// joins a running site as management or compute, docs/upgrade.md); and a
// racked site the placement table can place, since the lab starts it.
func (l *Spec) validateUnracked(e *model.ValidationError, inv *model.Inventory, servers, racks map[string]bool) {
	seen := map[string]bool{}
	for i, n := range l.Unracked {
		p := "lab.unracked[" + strconv.Itoa(i) + "]"
		switch {
		case !servers[n] && !racks[n]:
			e.Add(p, n, "unknown rack or BMM: name a rack or server of this inventory that is not racked yet")
		case seen[n]:
			e.Add(p, n, "listed twice: name each rack or server once")
		}
		seen[n] = true
	}
	later := l.unrackedNames(inv)
	if len(later) == 0 {
		return
	}
	for i, rk := range inv.Racks {
		for j, s := range rk.Servers {
			if r := s.Role; !later[s.Name] || (r != model.RoleKCP && r != model.RoleKCPSpare) {
				continue
			}
			e.Add(fmt.Sprintf("racks[%d].servers[%d].role", i, j), string(s.Role),
				s.Name+" is racked later (lab.unracked) and joins as management or compute; the re-placement makes it a KCP or the spare: allowed are management, compute")
		}
	}
	racked := rackedInventory(inv, later)
	if len(racked.Racks) == 0 {
		e.Add("lab.unracked", "", "every server is unracked: the lab starts a site, so leave at least one rack racked")
		return
	}
	if _, err := placement.Place(racked); err != nil {
		e.Add("lab.unracked", "", "the servers racked at start cannot be placed: "+err.Error())
	}
}

// rackedInventory is inv without the servers in later, and without the
// racks they empty: the site as it stands before they are racked.
func rackedInventory(inv *model.Inventory, later map[string]bool) *model.Inventory {
	out := *inv
	out.Racks = nil
	for _, r := range inv.Racks {
		nr := model.RackSpec{Name: r.Name}
		for _, s := range r.Servers {
			if !later[s.Name] {
				nr.Servers = append(nr.Servers, s)
			}
		}
		if len(nr.Servers) > 0 {
			out.Racks = append(out.Racks, nr)
		}
	}
	return &out
}

// joinRoles are the roles the installer gives the servers racked later
// (their kubelets' --node-labels): what a registration of the whole
// inventory on the racked site gives a joining server (management in the
// smaller group of its rack, or compute), never a control-plane role.
func joinRoles(inv *model.Inventory, placed []placement.Assignment, later map[string]bool) []placement.Assignment {
	current := make([]model.BMM, 0, len(placed))
	for _, a := range placed {
		current = append(current, model.BMM{Name: a.Name, Rack: a.Rack, Roles: []model.Role{a.Role}, ManagementGroup: a.ManagementGroup})
	}
	plan, _ := placement.PlanRegistration(current, inv)
	var out []placement.Assignment
	for _, ref := range inv.Servers() {
		s := ref.Server
		if !later[s.Name] {
			continue
		}
		a, ok := plan.JoinRole(s.Name)
		if !ok || !(a.Role == model.RoleManagement || a.Role == model.RoleCompute) {
			// A plan that refuses the whole inventory still racks the
			// server: with the role the inventory asks for.
			a = placement.Assignment{Name: s.Name, Rack: ref.Rack, Role: model.RoleCompute}
			if s.Role != model.RoleCompute {
				a.Role, a.ManagementGroup = model.RoleManagement, placement.ChooseGroup(current, ref.Rack)
			}
		}
		current = append(current, model.BMM{Name: a.Name, Rack: a.Rack, Roles: []model.Role{a.Role}, ManagementGroup: a.ManagementGroup})
		out = append(out, a)
	}
	return out
}

// only is the lab section of an inventory that lists just the servers and
// racks in present (the out-inventory before every server is racked): the
// entries naming others are dropped, so the section passes the lab's
// checks there, and nothing is unracked any more.
func (l *Spec) only(present map[string]bool) *Spec {
	if l == nil {
		return nil
	}
	out := *l
	out.Unracked = nil
	out.BMCProfiles = keep(l.BMCProfiles, present)
	out.Firmware = keep(l.Firmware, present)
	out.TenantLoad = keep(l.TenantLoad, present)
	out.Faults = nil
	for _, f := range l.Faults {
		if present[f.BMM] {
			out.Faults = append(out.Faults, f)
		}
	}
	return &out
}

func keep[V any](m map[string]V, present map[string]bool) map[string]V {
	if m == nil {
		return nil
	}
	out := map[string]V{}
	for k, v := range m {
		if present[k] {
			out[k] = v
		}
	}
	return out
}
