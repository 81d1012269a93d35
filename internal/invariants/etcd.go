package invariants

import (
	"sort"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/etcdquorum"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
)

// etcdMember is one member as the log has shown it.
type etcdMember struct {
	bmm   string
	voter bool // added as a voter or promoted
	up    bool // its process runs
}

// etcdState is the etcd cluster as the log has shown it. A log without etcd
// events (a site whose etcd the lab does not run) leaves it unseen and the
// etcd rules silent.
type etcdState struct {
	seen    bool
	members map[string]*etcdMember // by member name
	had     bool                   // quorum held since the last loss (or ever)
	lastSet string                 // last member-set mismatch reported
}

func isEtcd(kind string) bool { return strings.HasPrefix(kind, "etcd-") }

// apply folds one etcd event in.
func (s *etcdState) apply(e events.Event) {
	if !isEtcd(e.Kind) || e.Kind == events.EtcdLeader {
		return
	}
	s.seen = true
	if s.members == nil {
		s.members = map[string]*etcdMember{}
	}
	name, _ := e.Detail["member"].(string)
	if name == "" {
		name = e.BMM
	}
	m := s.members[name]
	switch e.Kind {
	case events.EtcdMemberAdd:
		learner, _ := e.Detail["learner"].(bool)
		s.members[name] = &etcdMember{bmm: e.BMM, voter: !learner}
	case events.EtcdMemberPromote:
		if m != nil {
			m.voter = true
		}
	case events.EtcdMemberRemove:
		delete(s.members, name)
	case events.EtcdMemberStart, events.EtcdMemberStop:
		if m == nil { // started before the log began, or a removed member's last gasp
			if e.Kind == events.EtcdMemberStop {
				return
			}
			m = &etcdMember{bmm: e.BMM, voter: true}
			s.members[name] = m
		}
		m.up = e.Kind == events.EtcdMemberStart
	}
}

// quorum returns the voters and how many of them run.
func (s *etcdState) quorum() (voters, up int) {
	for _, m := range s.members {
		if m.voter {
			voters++
			if m.up {
				up++
			}
		}
	}
	return voters, up
}

// down reports whether bmm's member is in the set but not running.
func (s *etcdState) down(bmm string) bool {
	for _, m := range s.members {
		if m.bmm == bmm && !m.up {
			return true
		}
	}
	return false
}

// healthyFirst, before the event is applied, flags a KCP disruption that
// begins while another KCP's node is not Ready or its etcd member is down.
func (c *checker) healthyFirst(e events.Event, disruptionBegins bool) {
	st, es := c.st, &c.etcd
	if disruptionBegins && st.role[e.BMM] == model.RoleKCP {
		var bad []string
		for b, r := range st.role {
			if b == e.BMM || r != model.RoleKCP {
				continue
			}
			switch {
			case st.unhealthy[b]:
				bad = append(bad, b+" (node not Ready)")
			case st.readOnly[b]:
				bad = append(bad, b+" (root filesystem read-only)")
			case es.down(b):
				bad = append(bad, b+" (etcd member down)")
			}
		}
		if len(bad) > 0 {
			model.SortNatural(bad)
			c.add(RuleControlPlaneHealthyFirst, e, "%s of KCP %s while another control-plane member is unhealthy: %s",
				e.Kind, e.BMM, strings.Join(bad, ", "))
		}
	}
}

// etcdEvent, after the event is applied, checks quorum, a stale member and
// (outside operations) the member set.
func (c *checker) etcdEvent(e events.Event) {
	es := &c.etcd
	es.apply(e)
	if !es.seen {
		return
	}
	voters, up := es.quorum()
	q := etcdquorum.Quorum(voters)
	switch {
	case up >= q:
		es.had = true
	case es.had:
		es.had = false
		c.add(RuleEtcdQuorum, e, "after %s of %s only %d of %d voting etcd members run (%s), below quorum %d",
			e.Kind, e.BMM, up, voters, es.describe(), q)
	}
	if e.Kind == events.EtcdMemberStale && c.st.site.EtcdMembership {
		c.add(RuleEtcdMemberStale, e, "%s joined etcd while a member of its name was still listed: it was not removed before its disk was wiped", e.BMM)
	}
	if c.st.site.EtcdMembership && !c.st.site.busy(e.Time) {
		c.memberSet(e)
	}
}

// memberSet reports the member set differing from the active KCPs, once
// per distinct difference.
func (c *checker) memberSet(e events.Event) {
	es := &c.etcd
	if !es.seen {
		return
	}
	var extra, missing []string
	inSet := map[string]bool{}
	for name, m := range es.members {
		inSet[m.bmm] = true
		if c.st.role[m.bmm] != model.RoleKCP {
			extra = append(extra, name+" ("+m.bmm+")")
		}
	}
	for b, r := range c.st.role {
		if r == model.RoleKCP && !inSet[b] && !c.st.deleted[b] { // a deleted node is out of service
			missing = append(missing, b)
		}
	}
	model.SortNatural(extra)
	model.SortNatural(missing)
	diff := ""
	if len(extra) > 0 {
		diff += "members without an active KCP: " + strings.Join(extra, ", ")
	}
	if len(missing) > 0 {
		if diff != "" {
			diff += "; "
		}
		diff += "active KCPs without a member: " + strings.Join(missing, ", ")
	}
	if diff != "" && diff != es.lastSet {
		c.add(RuleEtcdMemberSet, e, "with no operation running, the etcd member set differs from the active KCPs: %s", diff)
	}
	es.lastSet = diff
}

func (s *etcdState) describe() string {
	var out []string
	for name, m := range s.members {
		if !m.voter {
			continue
		}
		state := "down"
		if m.up {
			state = "up"
		}
		out = append(out, name+" "+state)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// Window is a span during which an operation ran (End nil: to the end of
// the log).
type Window struct {
	Start time.Time  `json:"start"`
	End   *time.Time `json:"end,omitempty"`
}

// busy reports whether t falls in one of the site's operation windows. A
// site that lists none is busy until the log ends: the member set is then
// checked at the end only.
func (s Site) busy(t time.Time) bool {
	if len(s.Operations) == 0 {
		return true
	}
	for _, w := range s.Operations {
		if !t.Before(w.Start) && (w.End == nil || !t.After(*w.End)) {
			return true
		}
	}
	return false
}
