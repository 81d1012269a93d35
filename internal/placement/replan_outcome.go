package placement

import (
	"fmt"
	"sort"

	"github.com/rackroll/rackroll/internal/model"
)

// pickSpare keeps today's spare when it is outside the KCPs' racks (or no
// rack without a KCP can hold one), else picks one in the rack with the
// fewest KCPs (natural order on ties: the table's rack): a KCP leaving the
// control plane first (one change, not two), then a free management server.
func (s *site) pickSpare(spare int) string {
	if spare == 0 || s.count(model.RoleKCPSpare) >= spare {
		return ""
	}
	spareable := func(m *member) bool {
		return m.free() || m.idleSpare() || (m.cur == model.RoleKCP && m.next == "" && m.eligible() && m.healthy)
	}
	roomOutside := false
	s.each(func(m *member) {
		if s.kcps[m.rack] == 0 && spareable(m) {
			roomOutside = true
		}
	})
	var kept *member
	s.each(func(m *member) {
		if kept == nil && m.idleSpare() && (s.kcps[m.rack] == 0 || !roomOutside) {
			kept = m
		}
	})
	if kept != nil {
		s.set(kept, model.RoleKCPSpare)
		return ""
	}
	order := append([]string(nil), s.racks...)
	sort.SliceStable(order, func(i, j int) bool { return s.kcps[order[i]] < s.kcps[order[j]] })
	for _, r := range order {
		for _, pass := range []func(m *member) bool{
			func(m *member) bool { return m.cur == model.RoleKCP && spareable(m) },
			func(m *member) bool { return m.free() },
			func(m *member) bool { return m.idleSpare() },
		} {
			for _, m := range s.byRack[r] {
				if pass(m) {
					s.set(m, model.RoleKCPSpare)
					return ""
				}
			}
		}
	}
	return fmt.Sprintf("%d racks need a spare KCP: no healthy management server outside the active KCPs can become it", len(s.racks))
}

// outcome turns the chosen roles into joins and changes. Servers keep
// their role unless the plan moved them; a KCP or spare the table no
// longer needs becomes management again (compute when the inventory says
// so). New servers join as management or compute and become KCP or spare
// through a change, like any other server.
func (s *site) outcome() ([]Assignment, []Change) {
	g := newGroupCounter()
	s.each(func(m *member) {
		if m.known() && m.next == "" && m.cur == model.RoleManagement {
			if i, ok := groupIndex(m.group); ok {
				g.add(m.rack, i)
			}
		}
	})
	group := func(m *member, stays bool) string {
		i := g.choose(m.rack)
		if stays {
			g.add(m.rack, i)
		}
		return groupName(i)
	}
	var joins []Assignment
	var changes []Change
	s.each(func(m *member) {
		if !m.known() {
			role := model.RoleManagement
			if m.want == model.RoleCompute {
				role = model.RoleCompute
			}
			a := Assignment{Name: m.name, Rack: m.rack, Role: role}
			if role == model.RoleManagement {
				a.ManagementGroup = group(m, m.next == "")
			}
			joins = append(joins, a)
			if m.next != "" {
				changes = append(changes, Change{Name: m.name, Rack: m.rack, From: role, To: m.next})
			}
			return
		}
		switch {
		case m.next != "" && m.next != m.cur:
			changes = append(changes, Change{Name: m.name, Rack: m.rack, From: m.cur, To: m.next})
		case m.next == "" && m.cur.IsControlPlane():
			c := Change{Name: m.name, Rack: m.rack, From: m.cur, To: model.RoleCompute}
			if m.want != model.RoleCompute {
				c.To, c.ManagementGroup = model.RoleManagement, group(m, true)
			}
			changes = append(changes, c)
		}
	})
	sort.SliceStable(changes, func(i, j int) bool { return changeStage(changes[i]) < changeStage(changes[j]) })
	return joins, changes
}

// changeStage orders the changes safely: KCPs are added before any is
// retired (a management server before the spare, which the site keeps as
// long as it can), the new spare before the old one goes.
func changeStage(c Change) int {
	switch {
	case c.To == model.RoleKCP && c.From != model.RoleKCPSpare:
		return 0
	case c.To == model.RoleKCP:
		return 1
	case c.To == model.RoleKCPSpare && c.From != model.RoleKCP:
		return 2
	case c.To == model.RoleKCPSpare:
		return 3
	case c.From == model.RoleKCP:
		return 4
	}
	return 5
}

func groupIndex(g string) (int, bool) {
	switch g {
	case GroupA:
		return 0, true
	case GroupB:
		return 1, true
	}
	return 0, false
}
