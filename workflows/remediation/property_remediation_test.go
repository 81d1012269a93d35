package remediation

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// Property: whatever falls sick, when, and whether it comes back, the
// health monitor and the remediations and failovers it starts keep the
// safety rules. Each scenario draws a site, the remediation settings, how
// long a reboot, a reimage and a power-off take, and BMMs that fall sick at
// random simulated moments (node Ready=Unknown, read-only root filesystem,
// provisioning never finished), each recovering at its reboot, at its
// reprovision or never; sometimes several control-plane nodes at once (a
// storm), sometimes more compute than maxConcurrentCompute. It runs
// HealthMonitorWorkflow with the real RemediationWorkflow and
// KCPFailoverWorkflow children until nothing is left to do, records the
// effects as a lab event log and checks it with internal/invariants, plus:
// the ladders (each step once, in the role's order, as the fault allows),
// the storm guard and the compute cap against the fake site's ground truth,
// leases, the Unhealthy mark and power, one failover per KCP that did not
// recover by reboot, a spare whose provisioning failed in a failover
// marked Unhealthy and never chosen again, and the KCP count.
//
// The scenarios are drawn in property_remediation_gen_test.go and checked
// in property_remediation_oracle_test.go; this file drives them.
//
// Seeds: as TestPropertyRandomUpgrades (RACKROLL_PROPERTY_SEED, a number or
// "random"; RACKROLL_PROPERTY_N, default 200), with its own fixed default.
func TestPropertyRandomRemediations(t *testing.T) {
	base, n := uint64(20261207), wftest.PropertyN(t) // fixed seed: CI runs the same scenarios every time
	if os.Getenv("RACKROLL_PROPERTY_SEED") != "" {
		base = wftest.PropertySeed(t)
	}
	t.Logf("property seed %d, %d scenarios (RACKROLL_PROPERTY_SEED=%d RACKROLL_PROPERTY_N=%d reproduces)", base, n, base, n)
	var stats remStats
	defer func() {
		t.Logf("exercised: %d scenarios, %d faults, %d remediations, %d storms, %d at the compute cap, %d failovers, %d unhealthy, %d recovered, %d reboots or relabels of a read-only KCP; settled at most %v after the last fault",
			stats.scenarios, stats.faults, stats.remediations, stats.storms, stats.capped, stats.failovers, stats.unhealthy, stats.recovered, stats.rofsKCP, stats.settled)
	}()
	for i := range n {
		seed := base + uint64(i)
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			p := newRemProp(t, seed)
			p.replay = n == 1
			if !p.run(&stats) {
				t.Logf("replay alone: RACKROLL_PROPERTY_SEED=%d RACKROLL_PROPERTY_N=1 go test ./workflows/remediation -run TestPropertyRandomRemediations; scenario %s", seed, p.sc)
			}
		})
	}
}

// Seeds that once failed, run on every test run: 1795264668403708375 left
// a spare whose provisioning failed during a failover in Error, unmarked,
// to be picked again.
func TestPropertyRemediationRegressions(t *testing.T) {
	for _, seed := range []uint64{1795264668403708375} {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			p := newRemProp(t, seed)
			p.replay = true
			p.run(&remStats{})
		})
	}
}

// remProp runs one scenario: a FakeSite whose BMC effects take simulated
// time and whose effects are written to a lab event log, and the child
// workflows as they start and end.
type remProp struct {
	t   *testing.T
	sc  *remScenario
	r   *wftest.FakeSite
	env *testsuite.TestWorkflowEnvironment
	t0  time.Time
	// Guarded by r.mu: mocks run on their own goroutines.
	evs        []events.Event
	sick       map[string]*remFault    // faults in effect, by BMM
	runs       map[string]*remRun      // running, by run id
	foRuns     map[string]*remFailover // running, by run id
	rems       []*remRun               // in start order
	failovers  []*remFailover
	compute    int // compute remediations running
	maxCompute int
	kcps       int             // BMMs with role kcp in the ledger
	kcp        map[string]bool // the ledger's KCPs as of the last relabel
	minKCPs    int
	problems   []string
	starts     map[string]int  // remediations started, by BMM
	holders    map[string]int  // remediations and failovers running, by workflow id
	rofsKCP    map[string]bool // "bmm time" of each reset or relabel of a KCP Ready with a read-only root filesystem
	abort      bool            // a remediation loop: stop at the next poll
	replay     bool            // one scenario alone: a failure logs the whole story
	// Main loop only.
	done    bool
	final   api.MonitorStatus
	settled time.Duration // from the last fault
}

// remRun is one RemediationWorkflow run.
type remRun struct {
	in    api.RemediationInput
	start time.Time
	role  model.Role // the ledger's, when it started
	fault *remFault  // in effect when it started; nil: the BMM was well
	st    *api.RemediationStatus
	err   error
}

// remFailover is one KCPFailoverWorkflow run.
type remFailover struct {
	in    api.FailoverInput
	start time.Time
	st    *api.FailoverStatus
	err   error
}

func newRemProp(t *testing.T, seed uint64) *remProp {
	rnd := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	inventory := []string{wftest.Example("one-rack.yaml"), wftest.Example("two-rack.yaml"), wftest.Example("four-rack.yaml"), wftest.Example("four-rack.yaml")}[rnd.IntN(4)]
	r := wftest.NewFakeSite(t, inventory)
	p := &remProp{t: t, r: r, sc: drawRemScenario(rnd, inventory, r), sick: map[string]*remFault{}, kcp: map[string]bool{},
		runs: map[string]*remRun{}, foRuns: map[string]*remFailover{}, starts: map[string]int{}, holders: map[string]int{},
		rofsKCP: map[string]bool{}}
	r.St.Remediation = p.sc.cfg.WithDefaults()
	for _, b := range r.St.Cluster.BMMs {
		if b.HasRole(model.RoleKCP) {
			p.kcps++
			p.kcp[b.Name] = true
		}
	}
	p.minKCPs = p.kcps
	// The machines take the scenario's time; their effects go to the log.
	r.Delay["Restart"], r.Delay["Reimage"], r.Delay["PowerOff"] = p.sc.restart, p.sc.reimage, p.sc.powerOff
	r.Emit = p.record
	r.OnHeal = func(bmm string) { delete(p.sick, bmm) }
	return p
}

// run runs the scenario and checks it; false when a property failed.
func (p *remProp) run(stats *remStats) bool {
	p.env = wftest.QuietEnv()
	env := p.env
	env.SetTestTimeout(time.Minute) // wall clock, for a loaded machine
	p.t0 = env.Now()
	site := wftest.SiteOf(p.r, wftest.NoUpgrade)
	initialKCPs := p.kcps

	p.r.Register(env)
	env.RegisterWorkflowWithOptions(RemediationWorkflow, workflow.RegisterOptions{Name: api.RemediationWorkflowName})
	env.RegisterWorkflowWithOptions(KCPFailoverWorkflow, workflow.RegisterOptions{Name: api.KCPFailoverWorkflowName})
	p.follow()

	last := time.Duration(0)
	for _, f := range p.sc.faults {
		env.RegisterDelayedCallback(func() { p.inject(f) }, f.At)
		last = max(last, f.At)
	}
	// Look every five minutes (off the rounds' instants) whether all is
	// settled: every fault injected, nothing running or leased, and every
	// trigger clock due and refused (marked Unhealthy, or the storm guard).
	bound := last + 10*time.Hour
	for at := 5*time.Minute + 45*time.Second; at < bound; at += 5 * time.Minute {
		env.RegisterDelayedCallback(func() { p.poll(last) }, at)
	}
	env.ExecuteWorkflow(HealthMonitorWorkflow, api.MonitorInput{Cluster: p.r.St.Cluster.Name, RoundsPerRun: 1 << 30})
	if !env.IsWorkflowCompleted() || !p.done {
		p.t.Errorf("not settled within %v of the last fault (monitor completed %v)", bound-last, env.IsWorkflowCompleted())
		return false
	}

	p.r.Mu.Lock()
	defer p.r.Mu.Unlock()
	problems := p.problems
	if p.abort {
		// Stopped in the middle: the loop or the lease is the finding.
		problems = append(problems, p.repeats()...)
	} else {
		problems = append(problems, p.check(initialKCPs)...)
		for _, r := range p.rems {
			if r.st != nil {
				site = invariants.WithRemediation(site, *r.st)
			}
		}
		for _, v := range invariants.Check(p.evs, site) {
			// The log shows a KCP with a read-only root filesystem as
			// serving (its node stays Ready; only a fault event, which
			// the invariants do not read, says otherwise), so its
			// remediation reboot, or its relabelling by the failover,
			// looks like one KCP fewer. Only those are let through.
			if v.Rule == invariants.RuleControlPlaneCount && p.rofsKCP[v.BMM+" "+v.Time.String()] {
				continue
			}
			problems = append(problems, "violation: "+v.String())
		}
	}
	for _, pr := range problems {
		p.t.Error(pr)
	}
	if len(problems) > 0 && p.replay {
		p.story()
	}
	p.tally(stats)
	return len(problems) == 0
}

// record is the fake site's event log (r.mu held). It notes each reset
// or relabel of a KCP Ready with a read-only root filesystem, and the
// ledger's KCP count after each relabel.
func (p *remProp) record(kind, bmm, rack string, detail map[string]any) {
	p.evs = append(p.evs, events.Event{Time: p.env.Now(), Kind: kind, BMM: bmm, Rack: rack, Detail: detail})
	switch kind {
	case events.Reset:
		p.noteReadOnlyKCP(bmm, p.r.Bmm(bmm).HasRole(model.RoleKCP))
	case events.NodeLabel:
		p.noteReadOnlyKCP(bmm, p.kcp[bmm])
		p.kcps = 0
		for _, b := range p.r.St.Cluster.BMMs {
			if p.kcp[b.Name] = b.HasRole(model.RoleKCP); p.kcp[b.Name] {
				p.kcps++
			}
		}
		p.minKCPs = min(p.minKCPs, p.kcps)
	}
}

// noteReadOnlyKCP notes a reset or relabel of bmm if it is a KCP whose node
// is Ready with a read-only root filesystem (r.mu held).
func (p *remProp) noteReadOnlyKCP(bmm string, kcp bool) {
	if n := p.r.Nodes[bmm]; n.Rofs && n.Exists && n.Ready == model.ReadyTrue && kcp {
		p.rofsKCP[bmm+" "+p.env.Now().String()] = true
	}
}

// follow follows the child workflows as they start and end.
func (p *remProp) follow() {
	r, env := p.r, p.env
	env.SetOnChildWorkflowStartedListener(func(info *workflow.Info, _ workflow.Context, args converter.EncodedValues) {
		r.Mu.Lock()
		defer r.Mu.Unlock()
		now := env.Now()
		switch info.WorkflowType.Name {
		case api.RemediationWorkflowName:
			run := &remRun{start: now}
			if err := args.Get(&run.in); err != nil {
				p.problems = append(p.problems, "remediation input: "+err.Error())
				return
			}
			run.role = remediate.RoleOf(*r.Bmm(run.in.BMM))
			if f := p.sick[run.in.BMM]; f != nil {
				c := *f
				run.fault = &c
			}
			p.runs[info.WorkflowExecution.RunID] = run
			p.rems = append(p.rems, run)
			p.holders[info.WorkflowExecution.ID]++
			p.checkStart(run, now)
		case api.KCPFailoverWorkflowName:
			fo := &remFailover{start: now}
			if err := args.Get(&fo.in); err != nil {
				p.problems = append(p.problems, "failover input: "+err.Error())
				return
			}
			p.failovers = append(p.failovers, fo)
			p.foRuns[info.WorkflowExecution.RunID] = fo
			p.holders[info.WorkflowExecution.ID]++
		}
	})
	env.SetOnChildWorkflowCompletedListener(func(info *workflow.Info, result converter.EncodedValue, err error) {
		r.Mu.Lock()
		defer r.Mu.Unlock()
		id := info.WorkflowExecution.RunID
		p.holders[info.WorkflowExecution.ID]--
		if run := p.runs[id]; run != nil {
			delete(p.runs, id)
			if run.role == model.RoleCompute {
				p.compute--
			}
			if run.err = err; err == nil {
				run.st = &api.RemediationStatus{}
				run.err = result.Get(run.st)
			}
		} else if fo := p.foRuns[id]; fo != nil {
			delete(p.foRuns, id)
			if fo.err = err; err == nil {
				fo.st = &api.FailoverStatus{}
				fo.err = result.Get(fo.st)
			}
		} else {
			p.problems = append(p.problems, "a child workflow ended that was never seen to start: "+info.WorkflowExecution.ID)
		}
	})
}

// inject makes f's BMM sick.
func (p *remProp) inject(f remFault) {
	p.r.Mu.Lock()
	defer p.r.Mu.Unlock()
	n := p.r.Nodes[f.BMM]
	switch f.Kind {
	case faultUnknown:
		n.Ready = model.ReadyUnknown
	case faultROFS:
		n.Rofs = true
	case faultProvisioning:
		b := p.r.Bmm(f.BMM)
		since := p.env.Now()
		b.DetailedStatus, b.ProvisioningSince = model.BMMProvisioning, &since
		n.Exists = false
	}
	// The fake's machines fail as the fate says until a good boot heals them.
	p.r.RebootFails[f.BMM] = f.Fate != fateReboot && !f.Sticky
	if f.Fate == fateNever && !f.Sticky {
		p.r.Failing[f.BMM] = "the installer failed"
	}
	p.r.Sticky[f.BMM] = f.Sticky
	p.sick[f.BMM] = &f
	p.r.Event(events.Fault, f.BMM, map[string]any{"kind": f.Kind, "on": true})
	p.r.Sync(f.BMM)
}

// poll ends the run once it has settled, or at once after a remediation
// loop or a lease left behind by a closed workflow (main loop).
func (p *remProp) poll(lastFault time.Duration) {
	p.r.Mu.Lock()
	for _, l := range p.r.St.Leases {
		if p.holders[l.Holder] == 0 && !p.abort {
			p.abort = true
			p.problems = append(p.problems, fmt.Sprintf("%v: the lease on %s is held by %s, which is not running",
				p.env.Now().Sub(p.t0), l.BMM, l.Holder))
		}
	}
	abort := p.abort
	p.r.Mu.Unlock()
	if !p.done && abort {
		p.done = true
		p.env.CancelWorkflow()
	}
	if p.done || p.env.Now().Sub(p.t0) < lastFault {
		return
	}
	v, err := p.env.QueryWorkflow(api.QueryStatus)
	if err != nil {
		return
	}
	var st api.MonitorStatus
	if err := v.Get(&st); err != nil || st.LastObservation.Sub(p.t0) < lastFault {
		return // the last fault is not observed yet
	}
	p.r.Mu.Lock()
	busy := len(p.r.St.Leases) > 0 || len(p.runs) > 0 || len(p.foRuns) > 0
	p.r.Mu.Unlock()
	if busy || len(st.Active) > 0 {
		return
	}
	refused := map[string]bool{}
	for _, ref := range st.Refusals {
		refused[ref.BMM] = true
	}
	for _, c := range st.Clocks {
		if !c.Due || !refused[c.BMM] {
			return
		}
	}
	p.done, p.final, p.settled = true, st, p.env.Now().Sub(p.t0)-lastFault
	p.env.CancelWorkflow()
}
