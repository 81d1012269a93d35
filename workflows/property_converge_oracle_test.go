package workflows

import (
	"fmt"
	"slices"

	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/model"
)

// The oracle of TestPropertyConvergeAfterInterruptions: what must hold
// once the last run, left alone, has ended.

// check returns every property the scenario broke.
func (p *convProp) check() []string {
	f := p.f
	f.Mu.Lock()
	defer f.Mu.Unlock()
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	last := p.runs[len(p.runs)-1]
	if last.err != nil && !p.nothingLeft(last) {
		add("the last run, left alone, failed: %v", last.err)
	}
	if len(last.left) > 0 {
		add("the last run left leases behind: %+v", last.left)
	}
	for i, r := range p.runs {
		if twice := repeated(withoutOne(r.reimaged, r.retried)); len(twice) > 0 {
			add("run %d reimaged %v more than once", i+1, twice)
		}
		if r.short != "" {
			add("after run %d, no operation running: %s", i+1, r.short)
		}
	}

	// The table, by the checker's rule, on the log of all the runs.
	for _, v := range invariants.Check(p.evs, p.site) {
		if p.excused(v) {
			continue
		}
		add("violation: %s", v)
	}

	// Every in-service server on the version the operation converges to.
	for _, b := range f.St.Cluster.BMMs {
		if b.MarkedUnhealthy() || b.HasRole(model.RoleKCPSpare) && b.DetailedStatus == model.BMMAvailable {
			continue // out of service; the retired spare waits, powered off, on its version
		}
		n, st := f.Nodes[b.Name], f.Status(b.Name)
		switch {
		case b.RuntimeVersion != p.want || n.Version != p.want:
			add("%s (%s) runs %s (ledger %s), want %s", b.Name, b.Roles[0], n.Version, b.RuntimeVersion, p.want)
		case !st.IsReady() || f.Cordoned[b.NodeName]:
			add("%s (%s) is out of service: node %s, cordoned %v, ledger %s %q", b.Name, b.Roles[0], st, f.Cordoned[b.NodeName], b.DetailedStatus, b.DetailedStatusMessage)
		}
	}
	switch c := f.St.Cluster; p.sc.op {
	case opUpgrade:
		if c.RuntimeVersion != p.want || f.St.UpgradeTarget != "" || c.DetailedStatus != model.ClusterRunning {
			add("the cluster is %s on %s (upgrade target %q): %s; want Running on %s", c.DetailedStatus, c.RuntimeVersion, f.St.UpgradeTarget, c.DetailedStatusMessage, p.want)
		}
	case opFailover, opReplace:
		// The failed KCP serves as management; the replaced BMM serves in
		// its role, its mark cleared.
		b := f.Bmm(p.sc.target)
		if b.MarkedUnhealthy() {
			add("%s is still marked Unhealthy", b.Name)
		}
		if p.sc.op == opFailover && b.Roles[0] != model.RoleManagement {
			add("the failed KCP %s is %s, want management", b.Name, b.Roles[0])
		}
	}
	return problems
}

// nothingLeft: the last run was refused because an earlier one had done
// all: an upgrade that had completed, a failover whose failed KCP is
// management already.
func (p *convProp) nothingLeft(last *convRun) bool {
	if p.sc.op == opUpgrade {
		return last.fromVersion == p.want && last.fromTarget == ""
	}
	b := p.f.Bmm(p.sc.target)
	return p.sc.op == opFailover && b != nil && b.Roles[0] == model.RoleManagement && !b.MarkedUnhealthy()
}

// excused lets through what the operation may do by design: a replace of
// a KCP takes it out of the control plane while the others serve (the
// lease allows one KCP disruption while the set is full), which on a site
// with one active KCP leaves none serving for the while.
func (p *convProp) excused(v invariants.Violation) bool {
	return p.sc.op == opReplace && v.Rule == invariants.RuleControlPlaneCount && v.BMM == p.sc.target
}

func repeated(names []string) []string {
	seen := map[string]int{}
	var out []string
	for _, n := range names {
		if seen[n]++; seen[n] == 2 {
			out = append(out, n)
		}
	}
	return out
}

// convStats shows what the drawn scenarios exercised.
type convStats struct {
	scenarios, runs, hit, swept, redrawn int
	ops                                  map[convOp]int
	kinds                                map[cutKind]int
}

func (s *convStats) tally(p *convProp) {
	if s.ops == nil {
		s.ops, s.kinds = map[convOp]int{}, map[cutKind]int{}
	}
	s.scenarios++
	s.ops[p.sc.op]++
	s.runs += len(p.runs)
	for _, r := range p.runs {
		if r.hit {
			s.hit++
			s.kinds[r.cut.Kind]++
		}
	}
}

// racksOf is the site's racks.
func racksOf(s invariants.Site) map[string]bool {
	out := map[string]bool{}
	for _, r := range s.Racks {
		out[r] = true
	}
	return out
}

// floor checks, once run r is over and the ledger has swept its leases
// (no operation runs), that the active KCPs serving are at least what the
// healthy servers allow: the table's count, or every server that could be
// a KCP (a KCP, the spare or a management server, unmarked, its node not
// deleted) when fewer are left. A run cut short (terminated, killed,
// cancelled) left its work to the next run, and so does an upgrade or a
// replace whose step failed (the operator's to act on): the floor holds
// After the runs that ended on their own, and after any failover.
func (p *convProp) floor(r *convRun) {
	if r.hit && r.cut.Kind != cutCrash && (r.cut.Kind != cutFail || p.sc.op != opFailover) {
		return
	}
	f := p.f
	f.Mu.Lock()
	defer f.Mu.Unlock()
	racks := map[string]bool{}
	active, able := 0, 0
	for _, b := range f.St.Cluster.BMMs {
		racks[b.Rack] = true
		role := b.Roles[0]
		if role == model.RoleCompute || b.MarkedUnhealthy() || !f.Nodes[b.Name].Exists {
			continue
		}
		able++
		if role == model.RoleKCP && f.Status(b.Name).IsReady() {
			active++
		}
	}
	want, _ := model.ControlPlaneSize(len(racks))
	want = min(want, able)
	if active < want {
		r.short = fmt.Sprintf("%d active KCPs serve, the healthy servers allow %d", active, want)
	}
}

// withoutOne is names less one occurrence of name.
func withoutOne(names []string, name string) []string {
	if i := slices.Index(names, name); name != "" && i >= 0 {
		return slices.Delete(slices.Clone(names), i, i+1)
	}
	return names
}
