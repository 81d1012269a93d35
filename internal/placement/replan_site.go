package placement

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rackroll/rackroll/internal/model"
)

// member is one server of the new inventory during re-placement.
type member struct {
	name, rack string
	want       model.Role // the inventory's role (management, compute or a pin)
	cur        model.Role // the ledger's role; "" for a new server
	group      string     // the ledger's management group
	marked     bool       // marked Unhealthy: takes no new role
	healthy    bool       // may take a new control-plane role
	next       model.Role // the planned control-plane role; "" until chosen
}

func (m *member) known() bool    { return m.cur != "" }
func (m *member) eligible() bool { return m.want.IsManagementPool() }

// free: a management server (or a new one) that may become KCP or spare.
func (m *member) free() bool {
	return m.eligible() && m.next == "" && m.healthy && (m.cur == "" || m.cur == model.RoleManagement)
}

// idleSpare: today's spare, in service and not yet given a role.
func (m *member) idleSpare() bool {
	return m.cur == model.RoleKCPSpare && m.next == "" && m.eligible() && !m.marked
}

// site is the new inventory's servers with their ledger state.
type site struct {
	racks  []string // natural order
	byRack map[string][]*member
	leaves []Leave
	kcps   map[string]int // planned active KCPs per rack
}

func newSite(racks []rack, current []model.BMM) *site {
	s := &site{byRack: map[string][]*member{}, kcps: map[string]int{}}
	old := map[string]model.BMM{}
	for _, b := range current {
		old[b.Name] = b
	}
	listed := map[string]bool{}
	for _, r := range racks {
		s.racks = append(s.racks, r.name)
		for _, sv := range r.servers {
			listed[sv.Name] = true
			m := &member{name: sv.Name, rack: r.name, want: sv.Role, healthy: true}
			if b, ok := old[sv.Name]; ok && len(b.Roles) > 0 {
				m.cur, m.group, m.marked, m.healthy = b.Roles[0], b.ManagementGroup, b.MarkedUnhealthy(), b.Healthy()
			}
			s.byRack[r.name] = append(s.byRack[r.name], m)
		}
	}
	for _, b := range current {
		if !listed[b.Name] {
			l := Leave{Name: b.Name, Rack: b.Rack}
			if len(b.Roles) > 0 {
				l.Role = b.Roles[0]
			}
			s.leaves = append(s.leaves, l)
		}
	}
	sort.SliceStable(s.leaves, func(i, j int) bool { return naturalRackName(s.leaves[i], s.leaves[j]) })
	return s
}

func naturalRackName(a, b Leave) bool {
	if a.Rack != b.Rack {
		return model.NaturalLess(a.Rack, b.Rack)
	}
	return model.NaturalLess(a.Name, b.Name)
}

// each calls f on every member, racks and servers in natural order.
func (s *site) each(f func(m *member)) {
	for _, r := range s.racks {
		for _, m := range s.byRack[r] {
			f(m)
		}
	}
}

func (s *site) count(role model.Role) int {
	n := 0
	s.each(func(m *member) {
		if m.next == role {
			n++
		}
	})
	return n
}

func (s *site) set(m *member, role model.Role) {
	m.next = role
	if role == model.RoleKCP {
		s.kcps[m.rack]++
	}
}

// checkPins gives pinned servers their role; too many pins is a refusal.
func (s *site) checkPins(active, spare int) string {
	var kcp, sp int
	s.each(func(m *member) {
		switch m.want {
		case model.RoleKCP:
			kcp++
			s.set(m, model.RoleKCP)
		case model.RoleKCPSpare:
			sp++
			s.set(m, model.RoleKCPSpare)
		}
	})
	if kcp > active || sp > spare {
		return fmt.Sprintf("%d kcp and %d kcp-spare pins, but %d racks have %d active KCPs and %d spare: remove pins",
			kcp, sp, len(s.racks), active, spare)
	}
	return ""
}

// pickKCPs keeps today's KCPs where the table allows and fills the rest in
// racks without one (racks the table names first: natural order), avoiding
// the rack of a spare that can stay. When fewer racks than KCPs can hold
// one, racks are shared, fewest KCPs first.
func (s *site) pickKCPs(active int) string {
	able := 0
	for _, r := range s.racks {
		for _, m := range s.byRack[r] {
			if m.next == model.RoleKCP || (m.cur == model.RoleKCP && m.eligible()) || m.free() || m.idleSpare() {
				able++
				break
			}
		}
	}
	spread := len(s.racks) > 1 && able >= active
	for _, inService := range []bool{true, false} {
		s.each(func(m *member) {
			if m.cur == model.RoleKCP && m.next == "" && m.eligible() && m.marked != inService &&
				s.count(model.RoleKCP) < active && (!spread || s.kcps[m.rack] == 0) {
				s.set(m, model.RoleKCP)
			}
		})
	}
	for s.count(model.RoleKCP) < active {
		best, bestKey := (*member)(nil), [2]int{}
		for _, r := range s.racks {
			m := s.kcpCandidate(r)
			if m == nil {
				continue
			}
			key := [2]int{s.kcps[r], 0}
			if s.holdsIdleSpare(r) {
				key[1] = 1
			}
			if best == nil || key[0] < bestKey[0] || key[0] == bestKey[0] && key[1] < bestKey[1] {
				best, bestKey = m, key
			}
		}
		if best == nil {
			return fmt.Sprintf("%d racks need %d active KCPs, only %d can be placed: no healthy management server left to become one",
				len(s.racks), active, s.count(model.RoleKCP))
		}
		s.set(best, model.RoleKCP)
	}
	return ""
}

// kcpCandidate is rack r's server to become a KCP: a free management
// server, else the spare.
func (s *site) kcpCandidate(r string) *member {
	for _, m := range s.byRack[r] {
		if m.free() {
			return m
		}
	}
	for _, m := range s.byRack[r] {
		if m.idleSpare() {
			return m
		}
	}
	return nil
}

func (s *site) holdsIdleSpare(r string) bool {
	for _, m := range s.byRack[r] {
		if m.idleSpare() {
			return true
		}
	}
	return false
}

// leavingNote names the leaving control-plane servers, for a refusal.
func (s *site) leavingNote() string {
	var names []string
	for _, l := range s.leaves {
		switch l.Role {
		case model.RoleKCP:
			names = append(names, fmt.Sprintf("the KCP %s of rack %s", l.Name, l.Rack))
		case model.RoleKCPSpare:
			names = append(names, fmt.Sprintf("the spare %s of rack %s", l.Name, l.Rack))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (the inventory drops " + strings.Join(names, ", ") + ")"
}
