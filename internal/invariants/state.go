package invariants

import (
	"sort"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
)

// state is the site as the log has shown it up to the current event.
type state struct {
	site      Site
	role      map[string]model.Role
	rack      map[string]string
	disrupted map[string]bool // reimage-start/power-off/reset seen, node-ready not yet
	unhealthy map[string]bool // last readiness not Ready, or node deleted
	deleted   map[string]bool
	// readOnly: a read-only root filesystem fault is on (a "fault" event);
	// such a node may still say Ready, yet the KCP does not serve.
	readOnly map[string]bool
	required int
	racks    map[string]bool // the racks of the site so far (the lab racks more: growth)
}

func newState(site Site) *state {
	s := &state{site: site, role: map[string]model.Role{}, rack: map[string]string{},
		disrupted: map[string]bool{}, unhealthy: map[string]bool{}, deleted: map[string]bool{}, readOnly: map[string]bool{}}
	spare := false
	for b, r := range site.Roles {
		s.role[b] = r
		if r == model.RoleKCP {
			s.required++
		}
		spare = spare || r == model.RoleKCPSpare
	}
	// Without a spare (one rack) nothing can stand in for a KCP being
	// upgraded: one KCP out is the least any upgrade can do.
	if !spare && s.required > 0 {
		s.required--
	}
	s.racks = map[string]bool{}
	for b, r := range site.Racks {
		s.rack[b] = r
		s.racks[r] = true
	}
	if site.ActiveKCP > 0 {
		s.required = site.ActiveKCP
	}
	return s
}

// apply folds one event into the state.
func (s *state) apply(e events.Event) {
	if e.Rack != "" && e.BMM != "" {
		s.rack[e.BMM] = e.Rack
	}
	switch e.Kind {
	case events.Racked:
		s.grow(e.Rack)
	case events.ReimageStart, events.PowerOff, events.Reset:
		s.disrupted[e.BMM] = true
	case events.NodeReady:
		delete(s.disrupted, e.BMM)
		delete(s.unhealthy, e.BMM)
		delete(s.deleted, e.BMM)
	case events.NodeNotReady, events.NodeUnknown:
		s.unhealthy[e.BMM] = true
	case events.NodeDeleted:
		s.unhealthy[e.BMM], s.deleted[e.BMM] = true, true
	case events.Fault:
		if k, _ := e.Detail["kind"].(string); k == string(faults.ReadOnlyRootFS) {
			if on, _ := e.Detail["on"].(bool); on {
				s.readOnly[e.BMM] = true
			} else {
				delete(s.readOnly, e.BMM)
			}
		}
	case events.NodeLabel:
		// A registration shows the kubelet's --node-labels, not a role
		// rackroll assigned: the role stays until rackroll labels it.
		if reg, _ := e.Detail[events.Registered].(bool); reg {
			break
		}
		if r, ok := roleLabel(e.Detail); ok {
			s.role[e.BMM] = model.Role(r)
		}
	}
}

// roleLabel reads rackroll.io/role from a node-label event's detail. The
// lab writes map[string]string; a log read back from JSON has map[string]any.
func roleLabel(d map[string]any) (string, bool) {
	switch l := d["labels"].(type) {
	case map[string]string:
		r, ok := l[model.LabelRole]
		return r, ok && r != ""
	case map[string]any:
		r, ok := l[model.LabelRole].(string)
		return r, ok && r != ""
	}
	return "", false
}

func isDisruption(kind string) bool {
	return kind == events.ReimageStart || kind == events.PowerOff || kind == events.Reset
}

// activeKCP counts the KCPs serving: role kcp, not disrupted, node healthy.
func (s *state) activeKCP() int {
	n := 0
	for b, r := range s.role {
		if r == model.RoleKCP && !s.disrupted[b] && !s.sick(b) {
			n++
		}
	}
	return n
}

// disruptedControlPlane lists the control-plane members (role kcp)
// disrupted now, sorted.
func (s *state) disruptedControlPlane(except string) []string {
	var out []string
	for b := range s.disrupted {
		if b != except && s.role[b] == model.RoleKCP {
			out = append(out, b)
		}
	}
	sort.Strings(out)
	return out
}

// unhealthyControlPlane lists the control-plane BMMs the storm guard counts:
// node not Ready or missing. A spare without a node is idle, not unhealthy.
func (s *state) unhealthyControlPlane() []string {
	var out []string
	for b := range s.role {
		if !s.sick(b) {
			continue
		}
		r := s.role[b]
		if !r.IsControlPlane() || (r == model.RoleKCPSpare && s.deleted[b]) {
			continue
		}
		out = append(out, b)
	}
	model.SortNatural(out)
	return out
}

// sick: the node is not Ready or missing, or its root filesystem is
// read-only (rackroll's gate and remediation count both as unhealthy).
func (s *state) sick(b string) bool { return s.unhealthy[b] || s.readOnly[b] }

// grow: a rack joined the site (the lab racked a server of a new rack).
// The control plane may then be re-placed by the table for the new rack
// count, which may want fewer active KCPs (one rack's three become two
// racks' one): the count promised is the smaller of the two.
func (s *state) grow(rack string) {
	if rack == "" || s.racks[rack] {
		return
	}
	s.racks[rack] = true
	active, spare := model.ControlPlaneSize(len(s.racks))
	if spare == 0 && active > 0 {
		active-- // as newState: without a spare one KCP out is the least
	}
	s.required = min(s.required, active)
}
