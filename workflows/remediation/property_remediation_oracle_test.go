package remediation

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
)

// The oracle of TestPropertyRandomRemediations: what must hold when a
// remediation starts and once the run has settled, against the fake site's
// ground truth (the event log goes to internal/invariants besides).

// checkStart checks a remediation as it starts (r.mu held): no BMM
// remediated again and again, the compute cap, one control-plane
// remediation at a time and the storm guard.
func (p *remProp) checkStart(run *remRun, now time.Time) {
	// One fault per BMM: a BMM remediated again and again is a
	// loop; stop the run rather than wait for the bound.
	if p.starts[run.in.BMM]++; p.starts[run.in.BMM] > 4 && !p.abort {
		p.abort = true
		p.problems = append(p.problems, fmt.Sprintf("%v: remediation of %s (%s) started a %dth time: the monitor keeps remediating it",
			now.Sub(p.t0), run.in.BMM, run.in.Trigger, p.starts[run.in.BMM]))
	}
	if run.role == model.RoleCompute {
		p.compute++
		p.maxCompute = max(p.maxCompute, p.compute)
		if p.compute > p.sc.cfg.MaxConcurrentCompute {
			p.problems = append(p.problems, fmt.Sprintf("%v: remediation of compute %s makes %d compute remediations running, above maxConcurrentCompute %d",
				now.Sub(p.t0), run.in.BMM, p.compute, p.sc.cfg.MaxConcurrentCompute))
		}
	}
	for _, other := range p.runs {
		if other != run && other.role.IsControlPlane() && run.role.IsControlPlane() {
			p.problems = append(p.problems, fmt.Sprintf("%v: remediation of %s %s started while that of %s %s still runs: one control-plane remediation at a time",
				now.Sub(p.t0), run.role, run.in.BMM, other.role, other.in.BMM))
		}
	}
	if bad := p.unhealthyControlPlane(); run.role.IsControlPlane() && len(bad) > 1 {
		p.problems = append(p.problems, fmt.Sprintf("%v: remediation of %s %s started while %d control-plane nodes are unhealthy (%s): the storm guard must hold it",
			now.Sub(p.t0), run.role, run.in.BMM, len(bad), strings.Join(bad, ", ")))
	}
}

// unhealthyControlPlane is the fake site's truth (r.mu held): the KCPs and
// spares marked Unhealthy, stuck in provisioning, or whose node is missing,
// not Ready or read-only. A spare without a node that is not provisioning
// is idle.
func (p *remProp) unhealthyControlPlane() []string {
	var out []string
	for _, b := range p.r.St.Cluster.BMMs {
		role := remediate.RoleOf(b)
		if !role.IsControlPlane() {
			continue
		}
		n := p.r.Nodes[b.Name]
		prov := b.DetailedStatus == model.BMMProvisioning
		if role == model.RoleKCPSpare && !n.Exists && !prov {
			continue
		}
		if b.DetailedStatusMessage == model.UnhealthyMessage || prov || !n.Exists || n.Ready != model.ReadyTrue || n.Rofs {
			out = append(out, b.Name)
		}
	}
	return out
}

// check checks the direct properties of a settled run (r.mu held).
func (p *remProp) check(initialKCPs int) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	at := func(t time.Time) time.Duration { return t.Sub(p.t0) }

	// Each remediation: finished, each step at most once, the role's
	// ladder as the fault allows.
	markedBy := map[string]bool{}  // a remediation gave up on the BMM
	failedOver := map[string]int{} // KCPs and spares whose reboot failed
	for _, run := range p.rems {
		b := run.in.BMM
		if run.err != nil || run.st == nil {
			bad("remediation of %s started at %v failed: %v", b, at(run.start), run.err)
			continue
		}
		st := run.st
		if !st.Finished || st.FinishedAt == nil {
			bad("remediation of %s started at %v ended unfinished: %+v", b, at(run.start), st)
		}
		steps := ranSteps(st.Steps)
		seen := map[remediate.Step]bool{}
		for _, s := range st.Steps {
			if seen[s.Step] {
				bad("remediation of %s ran %s twice: %v", b, s.Step, steps)
			}
			seen[s.Step] = true
		}
		if st.Refused != "" {
			if len(st.Steps) > 0 {
				bad("remediation of %s was refused (%s) yet ran %v", b, st.Refused, steps)
			}
			continue
		}
		if run.fault != nil && run.fault.Kind == faultUnknown && run.role == model.RoleCompute {
			bad("compute %s was remediated for Ready=Unknown, which is no trigger for compute", b)
		}
		fate := fateReboot // a well BMM recovers at the first step
		if run.fault != nil {
			fate = run.fault.Fate
		}
		var want []string
		switch {
		case run.role == model.RoleCompute && fate == fateNever:
			want = []string{"reprovision:failed", "mark-unhealthy:ok", "power-off:ok"}
		case run.role == model.RoleCompute:
			want = []string{"reprovision:ok"}
		case run.role == model.RoleManagement:
			want = [][]string{{"reboot:ok"}, {"reboot:failed", "reprovision:ok"}, {"reboot:failed", "reprovision:failed", "mark-unhealthy:ok"}}[fate]
		case fate == fateReboot:
			want = []string{"reboot:ok"}
		default: // KCP or spare; the failover may fail (no usable spare)
			want = []string{"reboot:failed", "mark-unhealthy:ok", "failover:ok"}
			if len(steps) == 3 && steps[2] == "failover:failed" {
				want[2] = steps[2]
			}
			failedOver[b]++
		}
		if !slices.Equal(steps, want) {
			bad("remediation of %s %s (fault %v) ran %v, want %v; outcome %q", run.role, b, run.fault, steps, want, st.Outcome)
		}
		if seen[remediate.MarkUnhealthy] {
			markedBy[b] = true
		}
		if run.role.IsControlPlane() && seen[remediate.Failover] {
			n := 0
			for _, fo := range p.failovers {
				if fo.in.Failed == b && !fo.start.Before(run.start) && !fo.start.After(*st.FinishedAt) {
					n++
					if fo.err != nil || fo.st == nil {
						bad("failover of %s failed: %v", b, fo.err)
					} else if fo.st.FailedRecovered {
						markedBy[b] = false
					}
				}
			}
			if n != 1 {
				bad("%s %s did not recover by reboot: %d failovers during its remediation, want 1", run.role, b, n)
			}
		}
	}
	out = append(out, p.failedSpares(markedBy)...)
	out = append(out, p.repeats()...)
	total := 0
	for _, n := range failedOver {
		total += n
	}
	if len(p.failovers) != total {
		bad("%d failovers ran for %d control-plane servers whose reboot failed", len(p.failovers), total)
	}
	if p.minKCPs < initialKCPs {
		bad("the ledger held %d KCPs at one point, fewer than the %d it started with", p.minKCPs, initialKCPs)
	}
	if len(p.r.St.Leases) > 0 {
		bad("leases left behind: %+v", p.r.St.Leases)
	}

	// The end: a BMM that remediation gave up on carries exactly the
	// Unhealthy message (compute: powered off, node gone); one it did not
	// give up on does not; a BMM still sick was given up on, or is a
	// control-plane node the storm guard holds for an operator.
	logged := map[string]map[string]bool{}
	for _, e := range p.evs {
		if logged[e.BMM] == nil {
			logged[e.BMM] = map[string]bool{}
		}
		logged[e.BMM][e.Kind] = true
	}
	storm := map[string]bool{}
	if len(p.final.UnhealthyControlPlane) > 1 {
		for _, b := range p.final.UnhealthyControlPlane {
			storm[b] = true
		}
	}
	for _, bm := range p.r.St.Cluster.BMMs {
		b := bm.Name
		marked := bm.DetailedStatusMessage == model.UnhealthyMessage
		if markedBy[b] != marked {
			bad("%s ends with message %q; remediation gave up on it: %v", b, bm.DetailedStatusMessage, markedBy[b])
		}
		if marked && bm.HasRole(model.RoleCompute) && (bm.PowerState != model.PowerOff || !logged[b][events.PowerOff] || p.r.Nodes[b].Exists) {
			bad("compute %s marked Unhealthy yet power %s (logged power-off %v), node present %v", b, bm.PowerState, logged[b][events.PowerOff], p.r.Nodes[b].Exists)
		}
		if marked && bm.HasRole(model.RoleManagement) && p.r.Nodes[b].Exists {
			bad("management %s marked Unhealthy yet its node is still there", b)
		}
		if f := p.sick[b]; f != nil && !marked && !storm[b] && !(f.Kind == faultUnknown && bm.HasRole(model.RoleCompute)) {
			bad("%s is still sick (%v) and neither recovered nor given up on", b, f)
		}
	}
	return out
}

// failedSpares checks the spares whose provisioning failed during a
// failover (r.mu held): each went down the management ladder (issue 27:
// one failed attempt is no mark) and is marked Unhealthy only when the
// ladder gave up (noted in markedBy); a marked one is never chosen again,
// as the spare to promote or the new spare — no Replace runs in these
// scenarios to repair it.
func (p *remProp) failedSpares(markedBy map[string]bool) []string {
	var out []string
	failed := map[string]time.Duration{}
	for _, fo := range p.failovers { // in start order
		if fo.st == nil || fo.st.Plan == nil {
			continue
		}
		pl := fo.st.Plan
		for _, b := range []string{pl.Spare, pl.NewSpare} {
			if at, ok := failed[b]; ok {
				out = append(out, fmt.Sprintf("%v: the failover of %s chose %s, whose provisioning as the spare failed at %v: it must not be picked again until replaced",
					fo.start.Sub(p.t0), fo.in.Failed, b, at))
			}
		}
		for _, s := range fo.st.FallenOutcomes {
			if markedBy[s.BMM] = !s.Recovered; !s.Recovered {
				failed[s.BMM] = fo.start.Sub(p.t0)
			}
		}
	}
	return out
}

// repeats reports every BMM remediated more than once (r.mu held): each
// BMM falls sick once, and a remediation that ran ends by recovering it or
// giving up on it.
func (p *remProp) repeats() []string {
	ran, outcomes := map[string]int{}, map[string][]string{}
	var order []string
	for _, run := range p.rems {
		if run.st == nil || run.st.Refused != "" {
			continue
		}
		b := run.in.BMM
		if ran[b]++; ran[b] == 2 {
			order = append(order, b)
		}
		outcomes[b] = append(outcomes[b], fmt.Sprintf("%v %s %v: %s", run.start.Sub(p.t0), run.in.Trigger, ranSteps(run.st.Steps), run.st.Outcome))
	}
	var out []string
	for _, b := range order {
		out = append(out, fmt.Sprintf("%s (fault %v) was remediated %d times for one fault: %s", b, p.faultOf(b), ran[b], strings.Join(outcomes[b], "; ")))
	}
	return out
}

// story logs the event log, the remediations and the failovers (r.mu held).
func (p *remProp) story() {
	for _, e := range p.evs {
		p.t.Logf("event %v %s %s %v", e.Time.Sub(p.t0), e.Kind, e.BMM, e.Detail)
	}
	for _, r := range p.rems {
		if r.st != nil {
			p.t.Logf("remediation %v %s %s (fault %v): %v: %s", r.start.Sub(p.t0), r.role, r.in.BMM, r.fault, ranSteps(r.st.Steps), r.st.Outcome)
		}
	}
	for _, f := range p.failovers {
		if f.st != nil {
			p.t.Logf("failover %v of %s: promoted %v, new spare %q, %v: %s %s", f.start.Sub(p.t0), f.in.Failed, f.st.Promoted, f.st.NewSpare,
				ranSteps(f.st.Steps), f.st.FailedOutcome, f.st.Error)
		}
	}
}

// faultOf is the scenario's fault on bmm.
func (p *remProp) faultOf(bmm string) *remFault {
	for i := range p.sc.faults {
		if p.sc.faults[i].BMM == bmm {
			return &p.sc.faults[i]
		}
	}
	return nil
}

// remStats shows what the scenarios exercised, so a change that quietly
// stops raising storms or failing KCPs over shows in the log.
type remStats struct {
	scenarios, faults, remediations, storms, capped, failovers, unhealthy, recovered, rofsKCP int
	settled                                                                                   time.Duration // the longest, from the last fault
}

// tally adds the scenario to the stats (r.mu held).
func (p *remProp) tally(s *remStats) {
	s.scenarios++
	s.faults += len(p.sc.faults)
	s.rofsKCP += len(p.rofsKCP)
	s.settled = max(s.settled, p.settled)
	s.failovers += len(p.failovers)
	for _, run := range p.rems {
		if run.st != nil && run.st.Refused == "" {
			s.remediations++
			if run.st.Recovered {
				s.recovered++
			}
		}
	}
	for _, fo := range p.failovers {
		if fo.st != nil && fo.st.FailedRecovered {
			s.recovered++
		}
	}
	for _, b := range p.r.St.Cluster.BMMs {
		if b.DetailedStatusMessage == model.UnhealthyMessage {
			s.unhealthy++
		}
	}
	if slices.Contains(p.r.Log, "cluster "+model.ClusterDegraded) {
		s.storms++
	}
	if p.maxCompute == p.sc.cfg.MaxConcurrentCompute && p.sc.flood {
		s.capped++
	}
}
