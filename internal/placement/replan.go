package placement

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/model"
)

// Replan is what registering a new inventory on a running ledger does to
// the roles (the placement table, docs/behaviour.md#placement, for the new rack count): servers that
// join and leave, and the control-plane role changes of servers already in
// the ledger, one server per change, in a safe order. A registration
// records the joins and leaves; the changes are made one at a time through
// the live gate. Refusals say why the inventory would break the table.
type Replan struct {
	Racks  int `json:"racks"`
	Active int `json:"active"` // the table's active KCPs
	Spare  int `json:"spare"`  // the table's spares
	// Joins are new servers with the role they join with: never an extra
	// KCP or spare on a running site (they join as management and become
	// one through a Change).
	Joins    []Assignment `json:"joins,omitempty"`
	Leaves   []Leave      `json:"leaves,omitempty"`
	Changes  []Change     `json:"changes,omitempty"`
	Refusals []string     `json:"refusals,omitempty"`
}

// Leave is a ledger BMM the new inventory no longer lists.
type Leave struct {
	Name string     `json:"name"`
	Rack string     `json:"rack"`
	Role model.Role `json:"role"`
}

// Change is one server's role change. Each is one control-plane step: a
// KCP is added before one is retired, and only one changes at a time.
type Change struct {
	Name            string     `json:"name"`
	Rack            string     `json:"rack"`
	From            model.Role `json:"from"`
	To              model.Role `json:"to"`
	ManagementGroup string     `json:"managementGroup,omitempty"` // when To is management
}

func (c Change) String() string {
	s := fmt.Sprintf("%s (%s): %s -> %s", c.Name, c.Rack, c.From, c.To)
	if c.ManagementGroup != "" {
		s += " group " + c.ManagementGroup
	}
	return s
}

// Err is nil when the plan may be applied, else every refusal at once.
func (p Replan) Err() error {
	if len(p.Refusals) == 0 {
		return nil
	}
	return errors.New("the placement table cannot be kept: " + strings.Join(p.Refusals, "; "))
}

// RegistrationErr is why a registration of this plan is refused, or nil. A
// registration that adds or removes no server (it refreshes hardware facts)
// is never refused: roles off the table are the re-placement's to
// converge, not a reason to lock the operator out of the ledger.
func (p Replan) RegistrationErr() error {
	if !p.ServersChanged() {
		return nil
	}
	return p.Err()
}

// ServersChanged reports whether servers join or leave: a registration that
// only refreshes hardware facts changes neither.
func (p Replan) ServersChanged() bool { return len(p.Joins) > 0 || len(p.Leaves) > 0 }

// JoinRole is the role and group the plan gives a joining server.
func (p Replan) JoinRole(name string) (Assignment, bool) {
	for _, j := range p.Joins {
		if j.Name == name {
			return j, true
		}
	}
	return Assignment{}, false
}

// PlanRegistration plans inv on a ledger holding current. On an empty
// ledger it is the fresh placement (Place): every server joins with its
// role. Otherwise it keeps every role it can, so the fewest control-plane
// servers change, and moves only what the table for the new rack count
// needs: active KCPs in different racks and the spare outside their racks
// when possible, new picks in the racks the table names first.
func PlanRegistration(current []model.BMM, inv *model.Inventory) (Replan, error) {
	racks, err := loadRacks(inv)
	if err != nil {
		return Replan{}, err
	}
	p := Replan{Racks: len(racks)}
	p.Active, p.Spare = model.ControlPlaneSize(len(racks))
	if len(current) == 0 {
		placed, err := Place(inv)
		if err != nil {
			return Replan{}, err
		}
		p.Joins = placed
		return p, nil
	}
	s := newSite(racks, current)
	p.Leaves = s.leaves
	for _, l := range p.Leaves {
		if l.Role == model.RoleKCP {
			p.Refusals = append(p.Refusals, fmt.Sprintf("%s in rack %s is an active KCP (an etcd member) and would leave the inventory: "+
				"move it out of the control plane first (a failover or `starter bmm replace`), then register without it", l.Name, l.Rack))
		}
	}
	if msg := s.checkPins(p.Active, p.Spare); msg != "" {
		p.Refusals = append(p.Refusals, msg)
		return p, nil
	}
	if msg := s.pickKCPs(p.Active); msg != "" {
		p.Refusals = append(p.Refusals, msg+s.leavingNote())
	}
	if msg := s.pickSpare(p.Spare); msg != "" {
		p.Refusals = append(p.Refusals, msg+s.leavingNote())
	}
	if len(p.Refusals) > 0 {
		return p, nil
	}
	p.Joins, p.Changes = s.outcome()
	return p, nil
}

// PlanRoles is the re-placement plan of the ledger as it stands: its BMMs
// in their racks, each asking for management (compute stays compute).
// The re-placement workflow plans from it before each change, so a change
// made, a failover or an interruption in between is planned around. Pins
// of the inventory are not in the ledger: a pinned KCP keeps its role
// only as any KCP does, where the table allows.
func PlanRoles(bmms []model.BMM) (Replan, error) {
	inv := &model.Inventory{}
	at := map[string]int{}
	for _, b := range bmms {
		i, ok := at[b.Rack]
		if !ok {
			i = len(inv.Racks)
			at[b.Rack] = i
			inv.Racks = append(inv.Racks, model.RackSpec{Name: b.Rack})
		}
		want := model.RoleManagement
		if b.HasRole(model.RoleCompute) {
			want = model.RoleCompute
		}
		inv.Racks[i].Servers = append(inv.Racks[i].Servers, model.ServerSpec{Name: b.Name, Role: want})
	}
	return PlanRegistration(bmms, inv)
}
