package workflows

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/model"
)

// The oracle of TestPropertyConvergeAfterInterruptions: what must hold
// once the last run, left alone, has ended.

// check returns every property the scenario broke.
func (p *convProp) check() []string {
	f := p.f
	f.mu.Lock()
	defer f.mu.Unlock()
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
		if twice := repeated(r.reimaged); len(twice) > 0 {
			add("run %d reimaged %v more than once", i+1, twice)
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
	for _, b := range f.st.Cluster.BMMs {
		if b.MarkedUnhealthy() || b.HasRole(model.RoleKCPSpare) && b.DetailedStatus == model.BMMAvailable {
			continue // out of service; the retired spare waits, powered off, on its version
		}
		n, st := f.nodes[b.Name], f.status(b.Name)
		switch {
		case b.RuntimeVersion != p.want || n.version != p.want:
			add("%s (%s) runs %s (ledger %s), want %s", b.Name, b.Roles[0], n.version, b.RuntimeVersion, p.want)
		case !st.IsReady() || f.cordoned[b.NodeName]:
			add("%s (%s) is out of service: node %s, cordoned %v, ledger %s %q", b.Name, b.Roles[0], st, f.cordoned[b.NodeName], b.DetailedStatus, b.DetailedStatusMessage)
		}
	}
	switch c := f.st.Cluster; p.sc.op {
	case opUpgrade:
		if c.RuntimeVersion != p.want || f.st.UpgradeTarget != "" || c.DetailedStatus != model.ClusterRunning {
			add("the cluster is %s on %s (upgrade target %q): %s; want Running on %s", c.DetailedStatus, c.RuntimeVersion, f.st.UpgradeTarget, c.DetailedStatusMessage, p.want)
		}
	case opFailover, opReplace:
		// The failed KCP serves as management; the replaced BMM serves in
		// its role, its mark cleared.
		b := f.bmm(p.sc.target)
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
	b := p.f.bmm(p.sc.target)
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
	scenarios, runs, hit, swept int
	ops                         map[convOp]int
	kinds                       map[cutKind]int
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
