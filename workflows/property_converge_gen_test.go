package workflows

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
)

// The generator of TestPropertyConvergeAfterInterruptions: a site, one
// operation (an upgrade, a KCP failover or a replace), and the cuts that
// interrupt its first runs, each at a random machine step.

// convOp is the operation a scenario runs until it converges.
type convOp string

const (
	opUpgrade  convOp = "upgrade"
	opFailover convOp = "failover"
	opReplace  convOp = "replace"
)

// cutKind is how a run is interrupted.
type cutKind string

const (
	// cutCancel: the workflow is cancelled right after the step's effect;
	// its cleanups still reach the site.
	cutCancel cutKind = "cancel"
	// cutCancelUpdate: the operator's cancel-update (an upgrade only),
	// right after the step's effect.
	cutCancelUpdate cutKind = "cancel-update"
	// cutFail: the step fails (non-retryable), without effect.
	cutFail cutKind = "fail"
	// cutTerminate: the run is terminated before the step's effect:
	// nothing more of it reaches the site, its leases stay behind.
	cutTerminate cutKind = "terminate"
	// cutKill: the worker dies right after the step's effect, before the
	// run hears of it, and no worker comes back for the run: as terminate,
	// one effect later.
	cutKill cutKind = "kill"
	// cutCrash: the worker dies right after the step's effect and another
	// takes the run over: the history replays, the step whose answer was
	// lost is retried (activities are at-least-once), the run goes on.
	cutCrash cutKind = "crash"
)

// convCut interrupts one run at its Step-th machine step (1-based).
type convCut struct {
	Kind cutKind
	Step int
}

func (c convCut) String() string { return fmt.Sprintf("%s@%d", c.Kind, c.Step) }

// convScenario is one drawn sequence: runs of the same operation, each of
// the first len(cuts) cut once, then one run left alone.
type convScenario struct {
	seed      uint64
	inventory string
	op        convOp
	strategy  model.UpdateStrategy // upgrade
	// Target is the failed KCP (failover) or the BMM replaced (replace).
	target string
	// unhealthy: the replaced BMM is marked Unhealthy first (its node
	// deleted, or Unknown for a control-plane server), as remediation
	// leaves it.
	unhealthy bool
	// spareDown: the spare is powered off and Available, as an upgrade
	// retires it, so a failover provisions it before promoting it.
	spareDown bool
	cuts      []convCut
}

func (sc *convScenario) String() string {
	cuts := make([]string, len(sc.cuts))
	for i, c := range sc.cuts {
		cuts[i] = c.String()
	}
	s := fmt.Sprintf("%s %s", sc.inventory, sc.op)
	switch sc.op {
	case opUpgrade:
		s += fmt.Sprintf(" strategy=%q maxUnavailable=%d", sc.strategy.StrategyType, sc.strategy.MaxUnavailable)
	case opFailover:
		s += fmt.Sprintf(" failed=%s spareDown=%v", sc.target, sc.spareDown)
	case opReplace:
		s += fmt.Sprintf(" bmm=%s unhealthy=%v", sc.target, sc.unhealthy)
	}
	return s + " cuts=[" + strings.Join(cuts, " ") + "]"
}

// drawConvScenario draws a scenario on f's site (placed already).
func drawConvScenario(seed uint64, inventory string, f *wftest.FakeSite) *convScenario {
	rnd := rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d))
	sc := &convScenario{seed: seed, inventory: inventory}
	var kcps, all []string
	spare := false
	for _, b := range f.St.Cluster.BMMs {
		all = append(all, b.Name)
		switch b.Roles[0] {
		case model.RoleKCP:
			kcps = append(kcps, b.Name)
		case model.RoleKCPSpare:
			spare = true
		}
	}
	ops := []convOp{opUpgrade, opReplace}
	if spare {
		ops = append(ops, opFailover) // a site without a spare has no failover
	}
	sc.op = ops[rnd.IntN(len(ops))]
	// Steps a run takes, roughly: where a cut may fall (one beyond it
	// leaves that run alone).
	steps := 24
	switch sc.op {
	case opUpgrade:
		sc.strategy = model.UpdateStrategy{StrategyType: []string{"", model.StrategyRack, model.StrategyPauseAfterRack}[rnd.IntN(3)],
			MaxUnavailable: 1 + rnd.IntN(4)}
		steps = 12 * len(all)
	case opFailover:
		sc.target = kcps[rnd.IntN(len(kcps))]
		sc.spareDown = rnd.IntN(2) == 0
		steps = 32
	case opReplace:
		sc.target = all[rnd.IntN(len(all))]
		sc.unhealthy = rnd.IntN(2) == 0
	}
	kinds := []cutKind{cutCancel, cutFail, cutTerminate, cutKill}
	if sc.op == opUpgrade {
		kinds = append(kinds, cutCancelUpdate)
	}
	// Half the kills are crashes a new worker resumes, drawn apart so the
	// rest of a seed's scenario stays what it was.
	crash := rand.New(rand.NewPCG(seed, seed^0xc2b2ae3d27d4eb4f))
	for range 1 + rnd.IntN(3) {
		c := convCut{Kind: kinds[rnd.IntN(len(kinds))], Step: 1 + rnd.IntN(steps)}
		if c.Kind == cutKill && crash.IntN(2) == 0 {
			c.Kind = cutCrash
		}
		sc.cuts = append(sc.cuts, c)
	}
	return sc
}

// convInventory draws the site: two racks most often (one KCP and a spare,
// the case), four racks, or one rack (three KCPs, no spare).
func convInventory(seed uint64) string {
	rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return []string{wftest.Example("two-rack.yaml"), wftest.Example("two-rack.yaml"), wftest.Example("two-rack.yaml"),
		wftest.Example("four-rack.yaml"), wftest.Example("one-rack.yaml")}[rnd.IntN(5)]
}
