package workflows

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/actions"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/rackroll/rackroll/workflows/remediation"
	"github.com/rackroll/rackroll/workflows/upgrade"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// Property (issue 15, part 7; issue 27): an upgrade, a KCP failover or a
// replace interrupted at random points — cancelled, failed, terminated,
// its worker killed, or crashed and taken over by another — and simply
// run again converges: the roles are the placement table
// (docs/behaviour.md#placement) for the rack count (the checker's
// placement-table rule, on the event log of all the runs), every
// in-service server runs the version the operation converges to, no BMM
// is reimaged twice by one run, and the last run leaves no lease. After
// each run that ended on its own, and after any failover, no fewer KCPs
// serve than the healthy servers allow (floor). Between runs the ledger
// does what it does on its own: a lease whose holder has ended is swept
// (ClusterWorkflow.run).
//
// The scenarios are drawn in property_converge_gen_test.go and checked in
// property_converge_oracle_test.go; this file drives them.
//
// Seeds: 300 from a fixed base (30 under -short; `make soak` runs 10,000);
// `-args -seed=S -seeds=N` draws others,
// `-args -seed=S -seeds=1` replays one (a failure prints its line). A cut
// falls at the Nth step (machine call or ledger write) of its run: where
// servers run in parallel the order of their steps, hence which one is the
// Nth, may differ between two runs of the same seed.
func TestPropertyConvergeAfterInterruptions(t *testing.T) {
	base, n := *convSeed, convScenarios()
	t.Logf("property seed %d, %d scenarios (-args -seed=%d -seeds=%d reproduces)", base, n, base, n)
	var stats convStats
	defer func() {
		t.Logf("exercised: %d scenarios (%d upgrades, %d failovers, %d replaces), %d runs, %d cuts that fell (%v), %d re-drawn, %d leases swept",
			stats.scenarios, stats.ops[opUpgrade], stats.ops[opFailover], stats.ops[opReplace], stats.runs, stats.hit, stats.kinds, stats.redrawn, stats.swept)
	}()
	for i := range n {
		seed := base + uint64(i)
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			p := newConvProp(t, seed, nil)
			// A cut beyond its run never falls: the scenario starts over
			// with that cut re-drawn within the steps the run took.
			redraw := rand.New(rand.NewPCG(seed, seed^0x165667b19e3779f9))
			for tries := 0; ; tries++ {
				missed, steps := p.runCuts(&stats)
				if missed < 0 || steps == 0 || tries == maxRedraws {
					break
				}
				cuts := slices.Clone(p.sc.cuts)
				cuts[missed].Step = 1 + redraw.IntN(steps)
				stats.redrawn++
				p = newConvProp(t, seed, cuts)
			}
			if !p.finish(&stats) {
				t.Logf("replay alone: go test ./workflows -run TestPropertyConvergeAfterInterruptions -args -seed=%d -seeds=1; scenario %s", seed, p.sc)
			}
		})
	}
}

var (
	convSeed  = flag.Uint64("seed", 20261123, "TestPropertyConvergeAfterInterruptions: the first scenario's seed")
	convSeeds = flag.Int("seeds", 300, "TestPropertyConvergeAfterInterruptions: how many scenarios (30 under -short unless given; make soak runs 10,000)")
)

// convScenarios is -seeds, or 30 for the quick loop (-short) when not given.
func convScenarios() int {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "seeds" })
	if testing.Short() && !given {
		return 30
	}
	return *convSeeds
}

// convProp runs one scenario on one FakeSite, run after run.
type convProp struct {
	t     *testing.T
	sc    *convScenario
	f     *wftest.FakeSite
	env   *testsuite.TestWorkflowEnvironment // the run going on
	clock time.Time                          // where the next run starts
	site  invariants.Site
	want  string         // the version every in-service server ends on
	evs   []events.Event // guarded by f.mu
	runs  []*convRun
}

// convRun is one run of the operation.
type convRun struct {
	cut      *convCut
	hit      bool     // the cut fell within the run
	reimaged []string // by this run, in order
	// The cluster when the run started.
	fromVersion, fromTarget string
	left                    []lease.Lease
	err                     error  // the run's failure as the operator sees it
	short                   string // the run ended with fewer KCPs than the healthy servers allow
	// retried: the BMM whose reimage answer a crash lost; the retry
	// reimages it again (the fake BMC has no read-back to tell).
	retried string
}

func (r *convRun) String() string {
	cut := "none"
	if r.cut != nil {
		cut = r.cut.String()
		if !r.hit {
			cut += " (not reached)"
		}
	}
	return fmt.Sprintf("cut %s, reimaged %v, leases left %d, outcome: %v", cut, r.reimaged, len(r.left), r.err)
}

// newConvProp sets up seed's scenario; cuts, when given, replace the drawn ones.
func newConvProp(t *testing.T, seed uint64, cuts []convCut) *convProp {
	inventory := convInventory(seed)
	f := wftest.NewFakeSite(t, inventory)
	f.WatchHold = -1 // no BMC hints here; a watch left holding would leak its environment
	p := &convProp{t: t, f: f, sc: drawConvScenario(seed, inventory, f), clock: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)}
	if cuts != nil {
		p.sc.cuts = cuts
	}
	p.want = f.St.Cluster.RuntimeVersion
	target := wftest.NoUpgrade
	if p.sc.op == opUpgrade {
		p.want, target = "4.2.0", "4.2.0"
	}
	p.prepare()
	p.site = wftest.SiteOf(f, target)
	p.site.PlacementTable = true
	if p.sc.op == opReplace && p.site.Roles[p.sc.target] == model.RoleKCP {
		// An operator's action on a KCP may take it out while the set is
		// full (invariants.Site.ActiveKCP).
		active, _ := model.ControlPlaneSize(len(racksOf(p.site)))
		p.site.ActiveKCP = active - 1
	}
	f.Emit = func(kind, bmm, rack string, detail map[string]any) {
		p.evs = append(p.evs, events.Event{Time: p.env.Now(), Kind: kind, BMM: bmm, Rack: rack, Detail: detail})
	}
	return p
}

// prepare puts the site in the state the operation starts from: the failed
// KCP marked Unhealthy and down; the BMM to replace marked Unhealthy (a
// remediated server's node deleted); the spare retired by an upgrade.
func (p *convProp) prepare() {
	f, sc := p.f, p.sc
	mark := func(bmm string) {
		b := f.Bmm(bmm)
		b.DetailedStatus, b.DetailedStatusMessage, b.ReadyState = model.BMMError, model.UnhealthyMessage, model.ReadyUnknown
		if b.Roles[0].IsControlPlane() {
			f.Nodes[bmm].Ready = model.ReadyUnknown
		} else {
			f.Nodes[bmm].Exists = false
		}
	}
	switch {
	case sc.op == opFailover:
		mark(sc.target)
	case sc.op == opReplace && sc.unhealthy:
		mark(sc.target)
	}
	if sc.spareDown {
		for i := range f.St.Cluster.BMMs {
			if b := &f.St.Cluster.BMMs[i]; b.Roles[0] == model.RoleKCPSpare {
				b.DetailedStatus, b.PowerState = model.BMMAvailable, model.PowerOff
				f.Power[b.Name] = model.PowerOff
				f.Nodes[b.Name].Ready = model.ReadyUnknown
			}
		}
	}
}

// maxRedraws bounds how often a scenario starts over for a missed cut.
const maxRedraws = 3

// runCuts runs the operation once per cut. It stops at the first cut that
// fell beyond its run and returns its index and the steps the run took
// (-1 when every cut fell).
func (p *convProp) runCuts(stats *convStats) (missed, steps int) {
	for i := range p.sc.cuts {
		n := p.runOnce(i, &p.sc.cuts[i])
		stats.swept += p.between()
		p.floor(p.runs[i])
		if !p.runs[i].hit {
			return i, n
		}
	}
	return -1, 0
}

// finish runs the operation once more, alone, then checks.
func (p *convProp) finish(stats *convStats) bool {
	last := len(p.runs) // a missed cut left its later cuts unrun
	p.runOnce(last, nil)
	stats.swept += p.between()
	p.floor(p.runs[last])
	problems := p.check()
	for _, pr := range problems {
		p.t.Error(pr)
	}
	if len(problems) > 0 {
		for i, r := range p.runs {
			p.t.Logf("run %d: %s", i+1, r)
		}
	}
	stats.tally(p)
	return len(problems) == 0
}

// Cuts that wait for the end of the step's answer.
const (
	pendNone int32 = iota
	pendCancel
	pendKill
	pendCancelUpdate
)

// runOnce runs the operation in a fresh test environment on the same site,
// cut as cut says, and returns how many steps the run took.
func (p *convProp) runOnce(i int, cut *convCut) int {
	env := wftest.QuietEnv()
	env.SetStartTime(p.clock)
	env.SetTestTimeout(time.Minute) // wall clock, for a loaded machine
	run := &convRun{cut: cut}
	p.runs = append(p.runs, run)
	f := p.f
	f.Mu.Lock()
	p.env = env
	reimagedBefore := len(f.Reimages)
	run.fromVersion, run.fromTarget = f.St.Cluster.RuntimeVersion, f.St.UpgradeTarget
	f.Mu.Unlock()
	f.Register(env)

	steps := 0
	var pending atomic.Int32
	f.OnStep = func(activity, who string) error {
		if steps++; cut == nil || steps != cut.Step {
			return nil
		}
		if activity == "RecordBMM" && cut.Kind == cutFail {
			// The ledger's writes are checked Updates, retried: they do
			// not fail at random; the next step fails instead.
			steps--
			return nil
		}
		run.hit = true
		switch cut.Kind {
		case cutFail:
			return temporal.NewNonRetryableApplicationError(fmt.Sprintf("injected failure of %s %s", activity, who), "Injected", nil)
		case cutTerminate:
			f.Cut.Store(true)
			pending.Store(pendCancel)
			return temporal.NewNonRetryableApplicationError("the run was terminated", "Injected", nil)
		case cutKill:
			pending.Store(pendKill)
		case cutCrash:
			f.LoseAnswer.Store(true)
			if activity == "Reimage" {
				run.retried = who
			}
		case cutCancel:
			pending.Store(pendCancel)
		case cutCancelUpdate:
			pending.Store(pendCancelUpdate)
		}
		return nil
	}
	f.AfterAnswer = func() {
		switch pending.Swap(pendNone) {
		case pendKill:
			f.Cut.Store(true)
			env.CancelWorkflow()
		case pendCancel:
			env.CancelWorkflow()
		case pendCancelUpdate:
			env.SignalWorkflow(api.SignalCancel, nil)
		}
	}
	p.operator(env)
	run.err = p.execute(env, i)
	if !env.IsWorkflowCompleted() {
		run.err = fmt.Errorf("the run did not end (wall-clock test timeout): %v", run.err)
	}

	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.OnStep, f.AfterAnswer = nil, nil
	f.Cut.Store(false)
	run.reimaged = append([]string(nil), f.Reimages[reimagedBefore:]...)
	run.left = append([]lease.Lease(nil), f.St.Leases...)
	p.clock = env.Now().Add(time.Minute)
	return steps
}

// operator continues an upgrade at each pause (PauseAfterRack, a missed
// threshold), looking every five simulated minutes for two days.
func (p *convProp) operator(env *testsuite.TestWorkflowEnvironment) {
	if p.sc.op != opUpgrade {
		return
	}
	for at := 5 * time.Minute; at <= 48*time.Hour; at += 5 * time.Minute {
		env.RegisterDelayedCallback(func() {
			v, err := env.QueryWorkflow(api.QueryStatus)
			if err != nil {
				return
			}
			var st api.UpgradeStatus
			if v.Get(&st) == nil && st.DetailedStatus == model.ClusterUpdatePaused {
				env.SignalWorkflow(api.SignalContinue, nil)
			}
		}, at)
	}
}

// execute runs the operation under the id the starter gives it and returns
// its failure, or why it did not complete, as the operator reads it.
func (p *convProp) execute(env *testsuite.TestWorkflowEnvironment, i int) error {
	cluster := p.f.St.Cluster.Name
	switch p.sc.op {
	case opUpgrade:
		env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: api.UpgradeID(cluster)})
		env.ExecuteWorkflow(upgrade.RuntimeUpgradeWorkflow, wftest.UpgradeInput(p.sc.strategy))
		if err := env.GetWorkflowError(); err != nil {
			return err
		}
		var st api.UpgradeStatus
		if err := env.GetWorkflowResult(&st); err != nil {
			return err
		}
		if st.DetailedStatus != model.ClusterRunning {
			return fmt.Errorf("upgrade ended %s: %s", st.DetailedStatus, st.DetailedStatusMessage)
		}
		return nil
	case opFailover:
		env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: api.FailoverID(cluster)})
		env.ExecuteWorkflow(remediation.KCPFailoverWorkflow, api.FailoverInput{Cluster: cluster, Failed: p.sc.target})
		if err := env.GetWorkflowError(); err != nil {
			return err
		}
		var st api.FailoverStatus
		if err := env.GetWorkflowResult(&st); err != nil {
			return err
		}
		if st.Error != "" {
			return fmt.Errorf("failover: %s", st.Error)
		}
		return nil
	default:
		env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: api.ActionID(cluster, p.sc.target, i+1)})
		env.ExecuteWorkflow(actions.BMMActionWorkflow, api.ActionInput{Cluster: cluster, BMM: p.sc.target, Action: api.ActionReplace,
			ReplaceParams: api.ReplaceParams{SafeguardMode: api.SafeguardNone}})
		return env.GetWorkflowError()
	}
}

// between is the time between two runs: the ledger sweeps the leases whose
// holders have ended (every holder: the run is over), as
// ClusterWorkflow.run does one sweep after; an operator resumes a cluster
// a failed action or failover left Degraded or Failed (`starter cluster
// resume`; a failed upgrade is resumed by starting it again). It returns
// how many leases were swept.
func (p *convProp) between() int {
	f := p.f
	f.Mu.Lock()
	defer f.Mu.Unlock()
	swept := len(f.St.Leases)
	for _, h := range lease.Holders(f.St.Leases) {
		f.St.Leases = lease.Release(f.St.Leases, "", h)
	}
	if c := &f.St.Cluster; p.sc.op != opUpgrade && (c.DetailedStatus == model.ClusterDegraded || c.DetailedStatus == model.ClusterFailed) {
		c.DetailedStatus, c.DetailedStatusMessage = model.ClusterRunning, "resumed by the operator"
	}
	return swept
}
