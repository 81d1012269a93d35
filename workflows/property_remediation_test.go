package workflows

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
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
// recover by reboot, and the KCP count.
//
// Seeds: as TestPropertyRandomUpgrades (RACKROLL_PROPERTY_SEED, a number or
// "random"; RACKROLL_PROPERTY_N, default 200), with its own fixed default.
func TestPropertyRandomRemediations(t *testing.T) {
	base, n := uint64(20261207), propertyN(t) // fixed seed: CI runs the same scenarios every time
	if os.Getenv("RACKROLL_PROPERTY_SEED") != "" {
		base = propertySeed(t)
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
				t.Logf("replay alone: RACKROLL_PROPERTY_SEED=%d RACKROLL_PROPERTY_N=1 go test ./workflows -run TestPropertyRandomRemediations; scenario %s", seed, p.sc)
			}
		})
	}
}

// remStats shows what the scenarios exercised, so a change that quietly
// stops raising storms or failing KCPs over shows in the log.
type remStats struct {
	scenarios, faults, remediations, storms, capped, failovers, unhealthy, recovered, rofsKCP int
	settled                                                                                   time.Duration // the longest, from the last fault
}

// Fault kinds the scenarios inject.
const (
	faultUnknown      = "node-unknown"
	faultROFS         = "readonly-rootfs"
	faultProvisioning = "provisioning-stuck" // ledger Provisioning, no node
)

// remFate is how far up its ladder a sick BMM must go to recover.
type remFate int

const (
	fateReboot      remFate = iota // a reboot brings it back (so does a reprovision)
	fateReprovision                // the reboot fails (power does not come back); a reprovision brings it back
	fateNever                      // nothing does
)

func (f remFate) String() string { return [...]string{"reboot", "reprovision", "never"}[f] }

// remFault is one BMM falling sick.
type remFault struct {
	BMM  string
	At   time.Duration // after the monitor starts
	Kind string
	Fate remFate
	// Sticky (with fateNever): restart and reimage succeed but the
	// condition survives them; otherwise power does not come back and the
	// installer fails.
	Sticky bool
}

func (f remFault) String() string {
	s := fmt.Sprintf("%s@%v:%s/%s", f.BMM, f.At, f.Kind, f.Fate)
	if f.Sticky {
		s += "(sticky)"
	}
	return s
}

// remScenario is one drawn run.
type remScenario struct {
	inventory                  string
	cfg                        model.RemediationSpec
	restart, reimage, powerOff time.Duration
	storm, flood               bool // drew several sick control-plane nodes, more compute than the cap
	faults                     []remFault
}

func (sc *remScenario) String() string {
	fs := make([]string, len(sc.faults))
	for i, f := range sc.faults {
		fs[i] = f.String()
	}
	c := sc.cfg
	return fmt.Sprintf("%s interval=%v rofs=%v unknown=%v provisioning=%v cap=%d restart=%v reimage=%v powerOff=%v storm=%v flood=%v faults=[%s]",
		sc.inventory, c.Interval, c.ReadOnlyRootFilesystemFor, c.NodeUnknownFor, c.ProvisioningTimeout, c.MaxConcurrentCompute,
		sc.restart, sc.reimage, sc.powerOff, sc.storm, sc.flood, strings.Join(fs, " "))
}

// drawRemScenario draws a scenario on r's site (placed already).
func drawRemScenario(rnd *rand.Rand, inventory string, r *remSite) *remScenario {
	sc := &remScenario{inventory: inventory}
	mins := func(ms ...int) time.Duration { return time.Duration(ms[rnd.IntN(len(ms))]) * time.Minute }
	sc.cfg = model.RemediationSpec{Interval: model.Duration(mins(1, 2, 5)), ReadOnlyRootFilesystemFor: model.Duration(mins(5, 10)),
		NodeUnknownFor: model.Duration(mins(10, 30)), ProvisioningTimeout: model.Duration(mins(20, 60)),
		MaxConcurrentCompute: []int{1, 2, 3, 5}[rnd.IntN(4)]}
	// Odd seconds keep effects off the rounds' instants (whole minutes).
	sc.restart = mins(0, 2, 5) + 7310*time.Millisecond
	sc.reimage = mins(0, 10, 25) + 11730*time.Millisecond
	sc.powerOff = mins(0, 1) + 3170*time.Millisecond

	var cp, compute, all []string
	for _, b := range r.st.Cluster.BMMs {
		all = append(all, b.Name)
		switch role := remediate.RoleOf(b); {
		case role.IsControlPlane():
			cp = append(cp, b.Name)
		case role == model.RoleCompute:
			compute = append(compute, b.Name)
		}
	}
	sick := map[string]bool{}
	add := func(bmm string, at time.Duration) {
		if sick[bmm] {
			return
		}
		sick[bmm] = true
		b := r.bmm(bmm)
		f := remFault{BMM: bmm, At: at + time.Duration(1+rnd.IntN(58))*time.Second + 500*time.Millisecond}
		// 45, 35 and 20 in 100. Ready=Unknown is no trigger for compute:
		// such a server must be left alone.
		kinds := []string{faultUnknown, faultROFS, faultProvisioning}
		if b.HasRole(model.RoleCompute) {
			kinds = []string{faultROFS, faultProvisioning, faultUnknown}
		}
		switch k := rnd.IntN(100); {
		case k < 45:
			f.Kind = kinds[0]
		case k < 80:
			f.Kind = kinds[1]
		default:
			f.Kind = kinds[2]
		}
		switch k := rnd.IntN(10); {
		case k < 4:
			f.Fate = fateReboot
		case k < 7:
			f.Fate = fateReprovision
		default:
			f.Fate = fateNever
			f.Sticky = f.Kind != faultProvisioning && rnd.IntN(2) == 0
		}
		sc.faults = append(sc.faults, f)
	}
	if len(cp) >= 2 && rnd.IntN(10) < 3 {
		// Control-plane nodes falling sick together (a storm), or one
		// after another, some while another is being remediated.
		sc.storm = true
		at, spread := mins(0, 10, 30, 60), []int{8, 8, 45}[rnd.IntN(3)]
		for _, i := range rnd.Perm(len(cp))[:2+rnd.IntN(min(2, len(cp)-1))] {
			add(cp[i], at+time.Duration(rnd.IntN(spread))*time.Minute)
		}
	}
	if len(compute) > sc.cfg.MaxConcurrentCompute && rnd.IntN(10) < 3 {
		sc.flood = true
		at := mins(0, 10, 30, 60)
		for _, i := range rnd.Perm(len(compute))[:min(len(compute), sc.cfg.MaxConcurrentCompute+1+rnd.IntN(5))] {
			add(compute[i], at+time.Duration(rnd.IntN(5))*time.Minute)
		}
	}
	for range 1 + rnd.IntN(5) {
		add(all[rnd.IntN(len(all))], time.Duration(rnd.IntN(120))*time.Minute)
	}
	sort.SliceStable(sc.faults, func(i, j int) bool { return sc.faults[i].At < sc.faults[j].At })
	return sc
}

// remProp runs one scenario: a remSite whose BMC, node-deletion and ledger
// effects take simulated time and are written to a lab event log, and the
// child workflows as they start and end.
type remProp struct {
	t   *testing.T
	sc  *remScenario
	r   *remSite
	env *testsuite.TestWorkflowEnvironment
	t0  time.Time
	// Guarded by r.mu: mocks run on their own goroutines.
	evs        []events.Event
	sick       map[string]*remFault    // faults in effect, by BMM
	shown      map[string]string       // readiness the log last showed, by BMM
	runs       map[string]*remRun      // running, by run id
	foRuns     map[string]*remFailover // running, by run id
	rems       []*remRun               // in start order
	failovers  []*remFailover
	compute    int // compute remediations running
	maxCompute int
	kcps       int // BMMs with role kcp in the ledger
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
	inventory := []string{"../examples/one-rack.yaml", "../examples/two-rack.yaml", "../examples/four-rack.yaml", "../examples/four-rack.yaml"}[rnd.IntN(4)]
	r := newRemSite(t, inventory)
	p := &remProp{t: t, r: r, sc: drawRemScenario(rnd, inventory, r), sick: map[string]*remFault{}, shown: map[string]string{},
		runs: map[string]*remRun{}, foRuns: map[string]*remFailover{}, starts: map[string]int{}, holders: map[string]int{},
		rofsKCP: map[string]bool{}}
	r.st.Remediation = p.sc.cfg.WithDefaults()
	for _, b := range r.st.Cluster.BMMs {
		p.shown[b.Name] = events.NodeReady
		if b.HasRole(model.RoleKCP) {
			p.kcps++
		}
	}
	p.minKCPs = p.kcps
	return p
}

// run runs the scenario and checks it; false when a property failed.
func (p *remProp) run(stats *remStats) bool {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	p.env = s.NewTestWorkflowEnvironment()
	env := p.env
	env.SetTestTimeout(time.Minute) // wall clock, for a loaded machine
	p.t0 = env.Now()
	site := siteOf(p.r.fakeSite, noUpgrade)
	initialKCPs := p.kcps

	// The effects first: testify answers with the first matching mock, so
	// these take the place of remSite's for the same activities.
	p.mockEffects()
	p.r.register(env)
	env.RegisterWorkflowWithOptions(RemediationWorkflow, workflow.RegisterOptions{Name: api.RemediationWorkflowName})
	env.RegisterWorkflowWithOptions(KCPFailoverWorkflow, workflow.RegisterOptions{Name: api.KCPFailoverWorkflowName})
	p.listen()

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
	env.ExecuteWorkflow(HealthMonitorWorkflow, api.MonitorInput{Cluster: p.r.st.Cluster.Name, RoundsPerRun: 1 << 30})
	if !env.IsWorkflowCompleted() || !p.done {
		p.t.Errorf("not settled within %v of the last fault (monitor completed %v)", bound-last, env.IsWorkflowCompleted())
		return false
	}

	p.r.mu.Lock()
	defer p.r.mu.Unlock()
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

// noUpgrade is the invariants' target version for a log without an
// upgrade: no reimage goes to it, so none counts for the rack rules.
const noUpgrade = "none (no upgrade runs)"

// mockEffects mocks the activities with effects on the servers: restart,
// reimage and power-off take the scenario's time and follow the faults;
// node deletion and role changes show in the log.
func (p *remProp) mockEffects() {
	r, env := p.r, p.env
	env.OnActivity(ba.Restart, mock.Anything, mock.Anything).After(p.sc.restart).Return(func(_ context.Context, ep bmc.Endpoint) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		f := p.sick[ep.BMM]
		switch {
		case f == nil || f.Fate == fateReboot:
			p.heal(ep.BMM)
		case !f.Sticky:
			r.nodes[ep.BMM].ready = model.ReadyUnknown
			p.emit(events.PowerOff, ep.BMM, map[string]any{"reason": "power-on-fails"})
			p.sync(ep.BMM)
			return temporal.NewNonRetryableApplicationError("The system did not power on", bmc.ErrTypePowerFailed, nil)
		}
		p.booted(ep.BMM)
		return nil
	})
	env.OnActivity(ba.Reimage, mock.Anything, mock.Anything).After(p.sc.reimage).Return(func(_ context.Context, in bmc.ReimageInput) (bmc.ReimageResult, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		v := map[string]any{"version": in.Version}
		f := p.sick[in.BMM]
		switch {
		case f == nil || f.Fate != fateNever:
			p.heal(in.BMM)
		case !f.Sticky:
			r.nodes[in.BMM].ready = model.ReadyUnknown // no bootable OS
			p.emit(events.ReimageFailed, in.BMM, v)
			p.sync(in.BMM)
			return bmc.ReimageResult{}, temporal.NewNonRetryableApplicationError("the installer failed", bmc.ErrTypeReimageFailed, nil)
		}
		r.nodes[in.BMM].version = in.Version
		p.emit(events.ReimageDone, in.BMM, v)
		p.booted(in.BMM)
		return bmc.ReimageResult{Version: in.Version, Reimaged: true}, nil
	})
	env.OnActivity(ba.PowerOff, mock.Anything, mock.Anything).After(p.sc.powerOff).Return(func(_ context.Context, in bmc.PowerOffInput) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.nodes[in.BMM].ready = model.ReadyUnknown
		p.emit(events.PowerOff, in.BMM, nil)
		p.sync(in.BMM)
		return nil
	})
	env.OnActivity(ka.DeleteNode, mock.Anything, mock.Anything).Return(func(_ context.Context, node string) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		b := r.byNode(node)
		r.nodes[b].exists = false
		p.sync(b)
		return nil
	})
	env.OnActivity(la.RecordBMM, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.RecordInput) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		if len(in.Patch.Roles) > 0 {
			p.noteReadOnlyKCP(in.Patch.BMM)
		}
		applyPatch(r.bmm(in.Patch.BMM), in.Patch)
		if len(in.Patch.Roles) > 0 {
			p.emit(events.NodeLabel, in.Patch.BMM, map[string]any{"labels": map[string]string{model.LabelRole: string(in.Patch.Roles[0])}})
			p.kcps = 0
			for _, b := range r.st.Cluster.BMMs {
				if b.HasRole(model.RoleKCP) {
					p.kcps++
				}
			}
			p.minKCPs = min(p.minKCPs, p.kcps)
		}
		return nil
	})
}

// listen logs resets and reimage starts as they begin, and follows the
// child workflows.
func (p *remProp) listen() {
	r, env := p.r, p.env
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
		switch info.ActivityType.Name {
		case "Restart":
			var ep bmc.Endpoint
			if args.Get(&ep) == nil {
				r.mu.Lock()
				p.emit(events.Reset, ep.BMM, map[string]any{"resetType": "ForceRestart"})
				p.noteReadOnlyKCP(ep.BMM)
				r.mu.Unlock()
			}
		case "Reimage":
			var in bmc.ReimageInput
			if args.Get(&in) == nil {
				r.mu.Lock()
				p.emit(events.ReimageStart, in.BMM, map[string]any{"version": in.Version})
				r.mu.Unlock()
			}
		}
	})
	env.SetOnChildWorkflowStartedListener(func(info *workflow.Info, _ workflow.Context, args converter.EncodedValues) {
		r.mu.Lock()
		defer r.mu.Unlock()
		now := env.Now()
		switch info.WorkflowType.Name {
		case api.RemediationWorkflowName:
			run := &remRun{start: now}
			if err := args.Get(&run.in); err != nil {
				p.problems = append(p.problems, "remediation input: "+err.Error())
				return
			}
			run.role = remediate.RoleOf(*r.bmm(run.in.BMM))
			if f := p.sick[run.in.BMM]; f != nil {
				c := *f
				run.fault = &c
			}
			p.runs[info.WorkflowExecution.RunID] = run
			p.rems = append(p.rems, run)
			p.holders[info.WorkflowExecution.ID]++
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
		r.mu.Lock()
		defer r.mu.Unlock()
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

// noteReadOnlyKCP notes a reset or relabel of bmm if it is a KCP whose node
// is Ready with a read-only root filesystem (r.mu held).
func (p *remProp) noteReadOnlyKCP(bmm string) {
	if n := p.r.nodes[bmm]; n.rofs && n.exists && n.ready == model.ReadyTrue && p.r.bmm(bmm).HasRole(model.RoleKCP) {
		p.rofsKCP[bmm+" "+p.env.Now().String()] = true
	}
}

// emit appends to the log at the environment's time (r.mu held).
func (p *remProp) emit(kind, bmm string, detail map[string]any) {
	p.evs = append(p.evs, events.Event{Time: p.env.Now(), Kind: kind, BMM: bmm, Rack: p.r.bmm(bmm).Rack, Detail: detail})
}

// sync logs a change of the node's readiness, as the lab's kubelet
// simulator does (r.mu held).
func (p *remProp) sync(bmm string) {
	n := p.r.nodes[bmm]
	kind := events.NodeReady
	switch {
	case !n.exists:
		kind = events.NodeDeleted
	case n.ready == model.ReadyUnknown:
		kind = events.NodeUnknown
	case n.ready != model.ReadyTrue:
		kind = events.NodeNotReady
	}
	if p.shown[bmm] != kind {
		p.shown[bmm] = kind
		p.emit(kind, bmm, nil)
	}
}

// booted logs the node after a boot: Ready again (ending the disruption the
// reset or reimage began) unless its condition survived (r.mu held).
func (p *remProp) booted(bmm string) {
	p.shown[bmm] = ""
	p.sync(bmm)
}

// heal is a good boot: the node exists, Ready, its root filesystem
// writable; the fault is over (r.mu held).
func (p *remProp) heal(bmm string) {
	n := p.r.nodes[bmm]
	n.exists, n.ready, n.rofs = true, model.ReadyTrue, false
	delete(p.sick, bmm)
}

// inject makes f's BMM sick.
func (p *remProp) inject(f remFault) {
	p.r.mu.Lock()
	defer p.r.mu.Unlock()
	n := p.r.nodes[f.BMM]
	switch f.Kind {
	case faultUnknown:
		n.ready = model.ReadyUnknown
	case faultROFS:
		n.rofs = true
	case faultProvisioning:
		p.r.bmm(f.BMM).DetailedStatus = model.BMMProvisioning
		n.exists = false
	}
	p.sick[f.BMM] = &f
	p.emit(events.Fault, f.BMM, map[string]any{"kind": f.Kind, "on": true})
	p.sync(f.BMM)
}

// unhealthyControlPlane is the fake site's truth (r.mu held): the KCPs and
// spares marked Unhealthy, stuck in provisioning, or whose node is missing,
// not Ready or read-only. A spare without a node that is not provisioning
// is idle.
func (p *remProp) unhealthyControlPlane() []string {
	var out []string
	for _, b := range p.r.st.Cluster.BMMs {
		role := remediate.RoleOf(b)
		if !role.IsControlPlane() {
			continue
		}
		n := p.r.nodes[b.Name]
		prov := b.DetailedStatus == model.BMMProvisioning
		if role == model.RoleKCPSpare && !n.exists && !prov {
			continue
		}
		if b.DetailedStatusMessage == model.UnhealthyMessage || prov || !n.exists || n.ready != model.ReadyTrue || n.rofs {
			out = append(out, b.Name)
		}
	}
	return out
}

// poll ends the run once it has settled, or at once after a remediation
// loop or a lease left behind by a closed workflow (main loop).
func (p *remProp) poll(lastFault time.Duration) {
	p.r.mu.Lock()
	for _, l := range p.r.st.Leases {
		if p.holders[l.Holder] == 0 && !p.abort {
			p.abort = true
			p.problems = append(p.problems, fmt.Sprintf("%v: the lease on %s is held by %s, which is not running",
				p.env.Now().Sub(p.t0), l.BMM, l.Holder))
		}
	}
	abort := p.abort
	p.r.mu.Unlock()
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
	p.r.mu.Lock()
	busy := len(p.r.st.Leases) > 0 || len(p.runs) > 0 || len(p.foRuns) > 0
	p.r.mu.Unlock()
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
	if len(p.r.st.Leases) > 0 {
		bad("leases left behind: %+v", p.r.st.Leases)
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
	for _, bm := range p.r.st.Cluster.BMMs {
		b := bm.Name
		marked := bm.DetailedStatusMessage == model.UnhealthyMessage
		if markedBy[b] != marked {
			bad("%s ends with message %q; remediation gave up on it: %v", b, bm.DetailedStatusMessage, markedBy[b])
		}
		if marked && bm.HasRole(model.RoleCompute) && (bm.PowerState != model.PowerOff || !logged[b][events.PowerOff] || p.r.nodes[b].exists) {
			bad("compute %s marked Unhealthy yet power %s (logged power-off %v), node present %v", b, bm.PowerState, logged[b][events.PowerOff], p.r.nodes[b].exists)
		}
		if marked && bm.HasRole(model.RoleManagement) && p.r.nodes[b].exists {
			bad("management %s marked Unhealthy yet its node is still there", b)
		}
		if f := p.sick[b]; f != nil && !marked && !storm[b] && !(f.Kind == faultUnknown && bm.HasRole(model.RoleCompute)) {
			bad("%s is still sick (%v) and neither recovered nor given up on", b, f)
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
	for _, b := range p.r.st.Cluster.BMMs {
		if b.DetailedStatusMessage == model.UnhealthyMessage {
			s.unhealthy++
		}
	}
	if slices.Contains(p.r.log, "cluster "+model.ClusterDegraded) {
		s.storms++
	}
	if p.maxCompute == p.sc.cfg.MaxConcurrentCompute && p.sc.flood {
		s.capped++
	}
}
