package invariants

import (
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
)

// etcd adds an etcd event for bmm's member (named after it).
func (l *logb) etcd(kind, bmm string, extra ...any) *logb {
	d := map[string]any{"member": bmm}
	for i := 0; i+1 < len(extra); i += 2 {
		d[extra[i].(string)] = extra[i+1]
	}
	return l.ev(kind, bmm, d)
}

// boot is the lab starting the three KCPs' members.
func boot() *logb {
	l := &logb{}
	for _, b := range []string{"rack1-m1", "rack2-m1", "rack3-m1"} {
		l.etcd(events.EtcdMemberAdd, b, "initial", true)
	}
	for _, b := range []string{"rack1-m1", "rack2-m1", "rack3-m1"} {
		l.etcd(events.EtcdMemberStart, b)
	}
	return l
}

// rejoin is a reimaged KCP's member coming back: stale removed, learner
// added, started, promoted.
func (l *logb) rejoin(bmm string, stale bool) *logb {
	if stale {
		l.etcd(events.EtcdMemberStale, bmm).etcd(events.EtcdMemberRemove, bmm, "by", "lab")
	}
	return l.etcd(events.EtcdMemberAdd, bmm, "learner", true).etcd(events.EtcdMemberStart, bmm).etcd(events.EtcdMemberPromote, bmm)
}

func TestEtcdRules(t *testing.T) {
	membership := func(s Site) Site { s.EtcdMembership = true; return s }
	for _, c := range []struct {
		name string
		log  *logb
		site func(Site) Site
		want []string // "rule@bmm: detail fragment", in order
	}{
		{name: "boot: the members coming up one by one is no loss", log: boot()},
		{name: "one member down keeps quorum",
			log: boot().ev(events.PowerOff, "rack1-m1", nil).etcd(events.EtcdMemberStop, "rack1-m1")},
		{name: "two down lose quorum, once",
			log:  boot().etcd(events.EtcdMemberStop, "rack1-m1").etcd(events.EtcdMemberStop, "rack2-m1").ev(events.NodeNotReady, "rack3-m1", nil),
			want: []string{"etcd-quorum@rack2-m1: only 1 of 3 voting etcd members run (rack1-m1 down, rack2-m1 down, rack3-m1 up), below quorum 2"}},
		{name: "quorum regained and lost again is reported again",
			log: boot().etcd(events.EtcdMemberStop, "rack1-m1").etcd(events.EtcdMemberStop, "rack2-m1").
				etcd(events.EtcdMemberStart, "rack1-m1").etcd(events.EtcdMemberStop, "rack3-m1"),
			want: []string{"etcd-quorum@rack2-m1: only 1 of 3", "etcd-quorum@rack3-m1: only 1 of 3"}},
		{name: "a learner does not count",
			log: boot().etcd(events.EtcdMemberStop, "rack3-m1").etcd(events.EtcdMemberRemove, "rack3-m1").
				etcd(events.EtcdMemberAdd, "rack4-m1", "learner", true).etcd(events.EtcdMemberStart, "rack4-m1").
				etcd(events.EtcdMemberStop, "rack2-m1"),
			want: []string{"etcd-quorum@rack2-m1: only 1 of 2 voting etcd members run"}},
		{name: "a removed member's stop changes nothing",
			log:  boot().etcd(events.EtcdMemberRemove, "rack3-m1").etcd(events.EtcdMemberStop, "rack3-m1").etcd(events.EtcdMemberStop, "rack2-m1"),
			want: []string{"etcd-quorum@rack2-m1: only 1 of 2"}},
		{name: "a log without etcd events is not judged on etcd",
			log: (&logb{}).ev(events.PowerOff, "rack1-m1", nil).ev(events.NodeReady, "rack1-m1", nil)},
		{name: "KCP disrupted while another KCP's node is not Ready",
			log:  boot().ev(events.NodeUnknown, "rack2-m1", nil).ev(events.Reset, "rack1-m1", nil),
			want: []string{"control-plane-healthy-first@rack1-m1: reset of KCP rack1-m1 while another control-plane member is unhealthy: rack2-m1 (node not Ready)"}},
		{name: "KCP disrupted while another KCP's member is down",
			log:  boot().etcd(events.EtcdMemberStop, "rack3-m1").ev(events.ReimageStart, "rack1-m1", v42),
			want: []string{"control-plane-healthy-first@rack1-m1: reimage-start of KCP rack1-m1 while another control-plane member is unhealthy: rack3-m1 (etcd member down)"}},
		{name: "the unhealthy KCP itself may be disrupted (remediation), and a reset then reimage is one disruption",
			log: boot().ev(events.NodeUnknown, "rack2-m1", nil).ev(events.Reset, "rack2-m1", nil).etcd(events.EtcdMemberStop, "rack2-m1").
				ev(events.ReimageStart, "rack2-m1", v42)},
		{name: "compute and spare disruptions are not control-plane disruptions",
			log: boot().ev(events.NodeUnknown, "rack2-m1", nil).ev(events.Reset, "rack1-c1", nil).ev(events.Reset, "rack4-m1", nil)},
		{name: "upgrade with removal before the wipe: set equal at the end, nothing stale", site: membership,
			log: boot().etcd(events.EtcdMemberRemove, "rack1-m1", "by", "client").etcd(events.EtcdMemberStop, "rack1-m1").
				reimage("rack1-m1").rejoin("rack1-m1", false)},
		{name: "upgrade without removal: stale, and flagged only with membership on", site: membership,
			log:  boot().etcd(events.EtcdMemberStop, "rack1-m1", "wiped", true).reimage("rack1-m1").rejoin("rack1-m1", true),
			want: []string{"etcd-member-stale@rack1-m1: rack1-m1 joined etcd while a member of its name was still listed"}},
		{name: "stale is silent by default",
			log: boot().etcd(events.EtcdMemberStop, "rack1-m1").reimage("rack1-m1").rejoin("rack1-m1", true)},
		{name: "retired KCP keeps its member: the set differs at the end", site: membership,
			log:  boot().label("rack4-m1", model.RoleKCP).rejoin("rack4-m1", false).label("rack3-m1", model.RoleKCPSpare),
			want: []string{"etcd-member-set@rack3-m1: with no operation running, the etcd member set differs from the active KCPs: members without an active KCP: rack3-m1 (rack3-m1)"}},
		{name: "a KCP without a member", site: membership,
			log:  boot().label("rack4-m1", model.RoleKCP),
			want: []string{"etcd-member-set@rack4-m1: active KCPs without a member: rack4-m1"}},
		{name: "outside an operation window the set is checked at once", site: func(s Site) Site {
			s.EtcdMembership, s.Operations = true, []Window{{Start: t0, End: tp(6)}}
			return s
		}, log: boot().ev(events.NodeReady, "rack1-m1", nil).label("rack4-m1", model.RoleKCP).ev(events.NodeReady, "rack1-m1", nil),
			want: []string{"etcd-member-set@rack4-m1: active KCPs without a member: rack4-m1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := site()
			if c.site != nil {
				s = c.site(s)
			}
			var got []Violation
			for _, v := range Check(c.log.evs, s) {
				if strings.HasPrefix(v.Rule, "etcd-") || v.Rule == RuleControlPlaneHealthyFirst {
					got = append(got, v)
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %d violations %v, want %v", len(got), got, c.want)
			}
			for i, w := range c.want {
				head, frag, _ := strings.Cut(w, ": ")
				rule, bmm, _ := strings.Cut(head, "@")
				if got[i].Rule != rule || got[i].BMM != bmm || !strings.Contains(got[i].Detail, frag) {
					t.Errorf("violation %d = %v, want %s", i, got[i], w)
				}
			}
		})
	}
}
