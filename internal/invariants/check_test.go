package invariants

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// logb builds a synthetic log, one second per event.
type logb struct{ evs []events.Event }

func (l *logb) at(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }

func (l *logb) ev(kind, bmm string, detail map[string]any) *logb {
	l.evs = append(l.evs, events.Event{Time: l.at(len(l.evs)), Kind: kind, BMM: bmm, Rack: rackOfName(bmm), Detail: detail})
	return l
}

// reimage is a whole upgrade reimage: reset, start, done, ready.
func (l *logb) reimage(bmm string) *logb {
	return l.ev(events.Reset, bmm, nil).ev(events.ReimageStart, bmm, v42).ev(events.ReimageDone, bmm, v42).ev(events.NodeReady, bmm, nil)
}

func (l *logb) label(bmm string, role model.Role) *logb {
	return l.ev(events.NodeLabel, bmm, map[string]any{"labels": map[string]string{model.LabelRole: string(role)}})
}

var v42 = map[string]any{"version": "4.2.0"}

// rackOfName reads "rack2" from "rack2-c1".
func rackOfName(bmm string) string {
	for i := range bmm {
		if bmm[i] == '-' {
			return bmm[:i]
		}
	}
	return ""
}

// site: three KCPs and a spare in racks 1-4, compute c1/c2 in racks 1, 2, 10.
func site() Site {
	s := Site{Roles: map[string]model.Role{
		"rack1-m1": model.RoleKCP, "rack2-m1": model.RoleKCP, "rack3-m1": model.RoleKCP, "rack4-m1": model.RoleKCPSpare,
		"rack1-m2": model.RoleManagement,
	}, TargetVersion: "4.2.0"}
	for _, r := range []string{"rack1", "rack2", "rack10"} {
		s.Roles[r+"-c1"], s.Roles[r+"-c2"] = model.RoleCompute, model.RoleCompute
	}
	return s
}

func tp(i int) *time.Time { t := t0.Add(time.Duration(i) * time.Second); return &t }

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		log   *logb
		site  func(*Site)
		rules []string // violated rules, in order; nil = none
	}{
		{name: "full control-plane swap respected",
			log: new(logb).reimage("rack4-m1").label("rack4-m1", model.RoleKCP).reimage("rack1-m1").reimage("rack2-m1").
				label("rack3-m1", model.RoleKCPSpare)},
		{name: "two KCPs disrupted at once",
			log:   new(logb).ev(events.Reset, "rack1-m1", nil).ev(events.PowerOff, "rack2-m1", nil),
			rules: []string{RuleControlPlaneCount, RuleControlPlaneOneAtATime, RuleControlPlaneCount}},
		{name: "without a spare, one KCP out is the floor",
			log:  new(logb).reimage("rack1-m1").reimage("rack2-m1"),
			site: func(s *Site) { delete(s.Roles, "rack4-m1") }},
		{name: "without a spare, two KCPs out break it",
			log:   new(logb).ev(events.Reset, "rack1-m1", nil).ev(events.Reset, "rack2-m1", nil),
			site:  func(s *Site) { delete(s.Roles, "rack4-m1") },
			rules: []string{RuleControlPlaneOneAtATime, RuleControlPlaneCount}},
		{name: "one operator restart of a KCP, with the floor lowered for it",
			log:  new(logb).ev(events.Reset, "rack1-m1", nil).ev(events.NodeReady, "rack1-m1", nil).ev(events.Reset, "rack2-m1", nil),
			site: func(s *Site) { s.ActiveKCP = 2 }},
		{name: "spare reimaged while a KCP is still out: the spare is no member, only the count suffers",
			log:   new(logb).ev(events.ReimageStart, "rack1-m1", v42).ev(events.ReimageDone, "rack1-m1", v42).ev(events.ReimageStart, "rack4-m1", v42),
			rules: []string{RuleControlPlaneCount}},
		{name: "KCP disrupted before the spare joined",
			log:   new(logb).reimage("rack4-m1").reimage("rack1-m1"),
			rules: []string{RuleControlPlaneCount}},
		{name: "retiring a KCP before the spare joined",
			log:   new(logb).label("rack3-m1", model.RoleManagement),
			rules: []string{RuleControlPlaneCount}},
		{name: "a Node registered anew with the kcp label is no KCP: the retirement still breaks the count",
			log: new(logb).ev(events.NodeLabel, "rack1-m2", map[string]any{"labels": map[string]string{model.LabelRole: "kcp"}, events.Registered: true}).
				label("rack3-m1", model.RoleManagement),
			rules: []string{RuleControlPlaneCount}},
		{name: "a read-only root filesystem makes a KCP unhealthy: resetting another is a violation",
			log: new(logb).ev(events.Fault, "rack2-m1", map[string]any{"kind": "readonly-rootfs", "on": true}).
				ev(events.Reset, "rack1-m1", nil),
			site:  func(s *Site) { s.ActiveKCP = 2 },
			rules: []string{RuleControlPlaneHealthyFirst, RuleControlPlaneCount}},
		{name: "once the read-only fault is off, the KCP serves again",
			log: new(logb).ev(events.Fault, "rack2-m1", map[string]any{"kind": "readonly-rootfs", "on": true}).
				ev(events.Fault, "rack2-m1", map[string]any{"kind": "readonly-rootfs", "on": false}).
				ev(events.Reset, "rack1-m1", nil),
			site: func(s *Site) { s.ActiveKCP = 2 }},
		{name: "other faults are the events that follow them (node-unknown), not the fault event",
			log: new(logb).ev(events.Fault, "rack2-m1", map[string]any{"kind": "slow-drain", "on": true}).
				ev(events.Reset, "rack1-m1", nil),
			site: func(s *Site) { s.ActiveKCP = 2 }},
		{name: "a fault taking a KCP down is not a violation",
			log: new(logb).ev(events.NodeUnknown, "rack1-m1", nil).ev(events.NodeReady, "rack1-m1", nil)},
		{name: "rebooting an already unhealthy KCP does not lower the count",
			log: new(logb).ev(events.NodeUnknown, "rack1-m1", nil).ev(events.Reset, "rack1-m1", nil).ev(events.NodeReady, "rack1-m1", nil)},
		{name: "racks in natural order, one at a time",
			log: new(logb).reimage("rack1-c1").reimage("rack1-c2").reimage("rack2-c1").reimage("rack10-c1")},
		{name: "servers of one rack in parallel",
			log: new(logb).ev(events.ReimageStart, "rack1-c1", v42).ev(events.ReimageStart, "rack1-c2", v42).
				ev(events.NodeReady, "rack1-c1", nil).ev(events.NodeReady, "rack1-c2", nil)},
		{name: "two racks at once",
			log: new(logb).ev(events.ReimageStart, "rack1-c1", v42).ev(events.ReimageStart, "rack2-c1", v42).
				ev(events.NodeReady, "rack1-c1", nil).ev(events.NodeReady, "rack2-c1", nil),
			rules: []string{RuleRackOverlap}},
		{name: "a failed reimage ends the server's upgrade",
			log: new(logb).ev(events.ReimageStart, "rack1-c1", v42).ev(events.ReimageFailed, "rack1-c1", v42).reimage("rack2-c1")},
		{name: "rack10 before rack2",
			log:   new(logb).reimage("rack1-c1").reimage("rack10-c1").reimage("rack2-c1"),
			rules: []string{RuleRackOrder}},
		{name: "a remediation reprovision is not an upgrade step",
			log: new(logb).ev(events.ReimageStart, "rack1-c1", v42).ev(events.ReimageStart, "rack2-c2", map[string]any{"version": "4.1.2"}).
				ev(events.NodeReady, "rack1-c1", nil).ev(events.NodeReady, "rack2-c2", nil).reimage("rack2-c1")},
		{name: "missed threshold without continue",
			log: new(logb).reimage("rack1-c1").ev(events.ReimageStart, "rack1-c2", v42).ev(events.ReimageFailed, "rack1-c2", v42).reimage("rack2-c1"),
			site: func(s *Site) {
				s.Units = []Unit{{Name: "rack1", Servers: []string{"rack1-c1", "rack1-c2"}, Succeeded: 1, Required: 2}}
			},
			rules: []string{RuleThreshold}},
		{name: "missed threshold, continued too late",
			log: new(logb).reimage("rack1-c1").ev(events.ReimageFailed, "rack1-c2", v42).reimage("rack2-c1"),
			site: func(s *Site) {
				s.Units = []Unit{{Name: "rack1", Servers: []string{"rack1-c1", "rack1-c2"}, Succeeded: 1, Required: 2, ContinuedAt: tp(100)}}
			},
			rules: []string{RuleThreshold}},
		{name: "missed threshold, continued",
			log: new(logb).reimage("rack1-c1").ev(events.ReimageFailed, "rack1-c2", v42).reimage("rack2-c1"),
			site: func(s *Site) {
				s.Units = []Unit{{Name: "rack1", Servers: []string{"rack1-c1", "rack1-c2"}, Succeeded: 1, Required: 2, ContinuedAt: tp(5)}}
			}},
		{name: "threshold met: no pause needed",
			log: new(logb).reimage("rack1-c1").reimage("rack1-c2").reimage("rack2-c1"),
			site: func(s *Site) {
				s.Units = []Unit{{Name: "rack1", Servers: []string{"rack1-c1", "rack1-c2"}, Succeeded: 2, Required: 2}}
			}},
		{name: "PauseAfterRack without continue",
			log: new(logb).reimage("rack1-c1").reimage("rack2-c1"),
			site: func(s *Site) {
				s.Units = []Unit{{Name: "rack1", Servers: []string{"rack1-c1"}, Succeeded: 1, Required: 1, PauseAfter: true}}
			},
			rules: []string{RulePauseAfterRack}},
		{name: "systemic canary, the rest of the rack before continue",
			log: new(logb).ev(events.ReimageFailed, "rack1-c1", v42).ev(events.ReimageFailed, "rack1-c2", v42).reimage("rack1-c3"),
			site: func(s *Site) {
				s.Units = []Unit{{Name: "rack1 canary", Servers: []string{"rack1-c1", "rack1-c2"}, Systemic: true}}
			},
			rules: []string{RuleSystemic}},
		{name: "systemic canary, continued",
			log: new(logb).ev(events.ReimageFailed, "rack1-c1", v42).ev(events.ReimageFailed, "rack1-c2", v42).reimage("rack1-c3"),
			site: func(s *Site) {
				s.Units = []Unit{{Name: "rack1 canary", Servers: []string{"rack1-c1", "rack1-c2"}, Systemic: true, ContinuedAt: tp(3)}}
			}},
		{name: "PauseAfterRack continued",
			log: new(logb).reimage("rack1-c1").reimage("rack2-c1"),
			site: func(s *Site) {
				s.Units = []Unit{{Name: "rack1", Servers: []string{"rack1-c1"}, Succeeded: 1, Required: 1, PauseAfter: true, ContinuedAt: tp(4)}}
			}},
		{name: "storm guard: KCP remediated while two control-plane nodes are unhealthy",
			log: new(logb).ev(events.NodeUnknown, "rack1-m1", nil).ev(events.NodeNotReady, "rack2-m1", nil),
			site: func(s *Site) {
				s.Remediations = []Remediation{{BMM: "rack1-m1", StartedAt: *tp(5), Steps: []string{"reboot"}}}
			},
			rules: []string{RuleStormGuard}},
		{name: "storm guard: one unhealthy KCP may be remediated",
			log: new(logb).ev(events.NodeUnknown, "rack1-m1", nil).ev(events.NodeDeleted, "rack4-m1", nil),
			site: func(s *Site) {
				s.Remediations = []Remediation{{BMM: "rack1-m1", StartedAt: *tp(5), Steps: []string{"reboot"}}}
			}},
		{name: "storm guard does not hold back compute",
			log: new(logb).ev(events.NodeUnknown, "rack1-m1", nil).ev(events.NodeNotReady, "rack2-m1", nil),
			site: func(s *Site) {
				s.Remediations = []Remediation{{BMM: "rack1-c1", StartedAt: *tp(5), Steps: []string{"reprovision"}}}
			}},
		{name: "ladder: each step once",
			log: new(logb).ev(events.NodeUnknown, "rack1-m2", nil).ev(events.Reset, "rack1-m2", nil).ev(events.ReimageStart, "rack1-m2", nil).ev(events.NodeReady, "rack1-m2", nil),
			site: func(s *Site) {
				s.Remediations = []Remediation{{BMM: "rack1-m2", StartedAt: *tp(1), FinishedAt: tp(4), Steps: []string{"reboot", "reprovision"}}}
			}},
		{name: "ladder: a step recorded twice",
			log: new(logb).ev(events.Reset, "rack1-m2", nil),
			site: func(s *Site) {
				s.Remediations = []Remediation{{BMM: "rack1-m2", StartedAt: *tp(0), Steps: []string{"reboot", "reboot"}}}
			},
			rules: []string{RuleLadderStepOnce}},
		{name: "ladder: a relabelled KCP's provisioning and management ladder",
			log: new(logb).ev(events.NodeUnknown, "rack1-m1", nil).ev(events.Reset, "rack1-m1", nil).label("rack4-m1", model.RoleKCP).label("rack1-m1", model.RoleManagement).
				ev(events.ReimageStart, "rack1-m1", nil).ev(events.Reset, "rack1-m1", nil).ev(events.ReimageStart, "rack1-m1", nil),
			site: func(s *Site) {
				s.Remediations = []Remediation{{BMM: "rack1-m1", StartedAt: *tp(0), FinishedAt: tp(9), Steps: []string{"reboot", "mark-unhealthy", "failover"}}}
			}},
		{name: "ladder: a third reimage after the relabel",
			log: new(logb).label("rack4-m1", model.RoleKCP).label("rack1-m1", model.RoleManagement).ev(events.ReimageStart, "rack1-m1", nil).
				ev(events.ReimageStart, "rack1-m1", nil).ev(events.ReimageStart, "rack1-m1", nil),
			site: func(s *Site) {
				s.Remediations = []Remediation{{BMM: "rack1-m1", StartedAt: *tp(0), FinishedAt: tp(9), Steps: []string{"reboot", "mark-unhealthy", "failover"}}}
			},
			rules: []string{RuleLadderStepOnce}},
		{name: "ladder: two resets in one remediation",
			log: new(logb).ev(events.Reset, "rack1-m2", nil).ev(events.Reset, "rack1-m2", nil).ev(events.Reset, "rack1-m2", nil),
			site: func(s *Site) {
				s.Remediations = []Remediation{{BMM: "rack1-m2", StartedAt: *tp(0), FinishedAt: tp(1), Steps: []string{"reboot"}}}
			},
			rules: []string{RuleLadderStepOnce}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := site()
			if tc.site != nil {
				tc.site(&s)
			}
			got := Check(tc.log.evs, s)
			var rules []string
			for _, v := range got {
				rules = append(rules, v.Rule)
				if v.Detail == "" || v.Time.IsZero() {
					t.Errorf("violation without detail or time: %+v", v)
				}
			}
			if len(rules) != len(tc.rules) {
				t.Fatalf("rules %v, want %v\n%v", rules, tc.rules, got)
			}
			for i := range rules {
				if rules[i] != tc.rules[i] {
					t.Fatalf("rules %v, want %v\n%v", rules, tc.rules, got)
				}
			}
		})
	}
}

// A log written by the lab and read back has its labels as map[string]any:
// role changes must still be seen (here the spare joining first keeps the
// count; without it the KCP reimage would break it).
func TestCheckReadsRolesFromAWrittenLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	l := events.New(f)
	for _, e := range new(logb).reimage("rack4-m1").label("rack4-m1", model.RoleKCP).reimage("rack1-m1").evs {
		l.Emit(e.Kind, e.BMM, e.Rack, e.Detail)
	}
	l.Close()
	f.Close()
	evs, err := events.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if v := Check(evs, site()); len(v) != 0 {
		t.Fatalf("violations: %v", v)
	}
}

func TestSiteFromInventory(t *testing.T) {
	inv, err := model.LoadInventory("../../examples/four-rack.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := SiteFromInventory(inv)
	if err != nil {
		t.Fatal(err)
	}
	n := map[model.Role]int{}
	for _, r := range s.Roles {
		n[r]++
	}
	if n[model.RoleKCP] != 3 || n[model.RoleKCPSpare] != 1 || n[model.RoleCompute] != 32 {
		t.Fatalf("roles %v", n)
	}
	if newState(s).required != 3 {
		t.Fatalf("required %d", newState(s).required)
	}
	if s.Racks["rack2-c1"] != "rack2" {
		t.Fatalf("racks %v", s.Racks)
	}
}
