package upgrade

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

// Property: whatever fails and whatever the operator decides, a runtime
// upgrade keeps the safety rules. Each scenario draws an inventory, a
// strategy, reimage failures on random servers (sometimes a KCP) and the
// operator's continue/cancel at each pause, runs RuntimeUpgradeWorkflow
// against the fake site, and checks the effects as a lab event log with
// internal/invariants, plus: every lease released, and a paused upgrade
// never reimaged anything until continued.
//
// Scenarios are seeded: RACKROLL_PROPERTY_SEED (a number, or "random")
// and RACKROLL_PROPERTY_N (default 200) reproduce or widen a run; a failing
// scenario prints the seed that replays it alone.
func TestPropertyRandomUpgrades(t *testing.T) {
	base, n := wftest.PropertySeed(t), wftest.PropertyN(t)
	t.Logf("property seed %d, %d scenarios (RACKROLL_PROPERTY_SEED=%d RACKROLL_PROPERTY_N=%d reproduces)", base, n, base, n)
	var stats propertyStats
	defer func() {
		t.Logf("exercised: %d scenarios, %d continued pauses, %d cancels, %d KCP failures, %d injected server failures, %d reimages",
			stats.scenarios, stats.pauses, stats.cancels, stats.kcpFailures, stats.failures, stats.reimages)
	}()
	for i := range n {
		seed := base + uint64(i)
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			sc := newScenario(seed)
			if !runScenario(t, sc, &stats) {
				t.Logf("replay alone: RACKROLL_PROPERTY_SEED=%d RACKROLL_PROPERTY_N=1 go test ./workflows/upgrade -run TestPropertyRandomUpgrades; scenario %s", seed, sc)
			}
		})
	}
}

// scenario is one drawn run.
type scenario struct {
	seed      uint64
	rnd       *rand.Rand
	inventory string
	strategy  model.UpdateStrategy
	failRate  float64 // share of management and compute servers whose reimage fails
	kcpFail   int     // index into the control-plane order (spare, kcps...) to fail; -1 none
	cancelP   float64 // chance to cancel at a pause rather than continue
}

func newScenario(seed uint64) *scenario {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	sc := &scenario{seed: seed, rnd: r, inventory: wftest.Example("four-rack.yaml"), kcpFail: -1}
	rackSize := 8
	if r.IntN(10) < 3 {
		sc.inventory, rackSize = wftest.Example("two-rack.yaml"), 4
	}
	s := model.UpdateStrategy{StrategyType: []string{"", model.StrategyRack, model.StrategyPauseAfterRack}[r.IntN(3)]}
	switch r.IntN(3) {
	case 1:
		s.ThresholdType, s.ThresholdValue = model.ThresholdPercentSuccess, r.IntN(101)
	case 2:
		s.ThresholdType, s.ThresholdValue = model.ThresholdCountSuccess, r.IntN(rackSize+1)
	}
	s.MaxUnavailable = r.IntN(rackSize + 2)
	if w := r.IntN(5); w > 0 {
		s.WaitTimeMinutes = wftest.Intp([]int{0, 0, 1, 5}[w-1])
	}
	sc.strategy = s
	sc.failRate = []float64{0, 0.05, 0.15, 0.35}[r.IntN(4)]
	if r.IntN(8) == 0 {
		sc.kcpFail = r.IntN(4)
	}
	sc.cancelP = []float64{0, 0.2, 0.5}[r.IntN(3)]
	return sc
}

func (sc *scenario) String() string {
	w := "default"
	if sc.strategy.WaitTimeMinutes != nil {
		w = strconv.Itoa(*sc.strategy.WaitTimeMinutes)
	}
	return fmt.Sprintf("%s strategy=%q threshold=%q/%d maxUnavailable=%d wait=%s failRate=%.2f kcpFail=%d cancelP=%.1f",
		sc.inventory, sc.strategy.StrategyType, sc.strategy.ThresholdType, sc.strategy.ThresholdValue,
		sc.strategy.MaxUnavailable, w, sc.failRate, sc.kcpFail, sc.cancelP)
}

// pollMinutes bounds a scenario in simulated time: waits of at most 5
// minutes per rack and decisions within 3 minutes of a pause end far
// sooner.
const pollMinutes = 600

func runScenario(t *testing.T, sc *scenario, stats *propertyStats) bool {
	f := wftest.NewFakeSite(t, sc.inventory)
	env := wftest.QuietEnv()
	f.Register(env)
	rec := wftest.RecordEvents(env, f)
	site := wftest.SiteOf(f, "4.2.0")

	// Failures: random management/compute servers, and maybe one server of
	// the control-plane order (the spare, then the KCPs but the last, which
	// retires as the new spare without a reimage).
	kcp, spare := wftest.PlacedRoles(f)
	cpOrder := append([]string{spare}, kcp[:len(kcp)-1]...)
	var failed []string
	for _, b := range f.St.Cluster.BMMs {
		if !b.Roles[0].IsControlPlane() && sc.rnd.Float64() < sc.failRate {
			f.Failing[b.Name] = "injected reimage failure"
			failed = append(failed, b.Name)
		}
	}
	kcpFailed := ""
	if sc.kcpFail >= 0 && sc.kcpFail < len(cpOrder) && cpOrder[sc.kcpFail] != "" {
		kcpFailed = cpOrder[sc.kcpFail]
		f.Failing[kcpFailed] = "injected KCP reimage failure"
	}

	// The operator: polls every simulated minute; at a pause waits 0-3
	// minutes, then continues or cancels (by update or signal).
	continued := map[string]invariants.Unit{}
	var cancelledAt *time.Time
	pausedSince, pausedReimages, decideAt := -1, 0, 0
	done := false
	var problems []string
	for m := 1; m <= pollMinutes; m++ {
		env.RegisterDelayedCallback(func() {
			if done || cancelledAt != nil {
				return
			}
			v, err := env.QueryWorkflow(api.QueryStatus)
			if err != nil {
				return
			}
			var st api.UpgradeStatus
			require.NoError(t, v.Get(&st))
			f.Mu.Lock()
			reimaged := len(f.Reimages)
			f.Mu.Unlock()
			if st.DetailedStatus != model.ClusterUpdatePaused {
				pausedSince = -1
				return
			}
			if pausedSince < 0 {
				pausedSince, pausedReimages, decideAt = m, reimaged, m+sc.rnd.IntN(4)
			}
			if reimaged != pausedReimages {
				problems = append(problems, fmt.Sprintf("minute %d: paused at %q, yet %d reimages since", m, st.DetailedStatusMessage, reimaged-pausedReimages))
			}
			if m < decideAt {
				return
			}
			now := env.Now()
			byUpdate := sc.rnd.IntN(2) == 0
			if sc.rnd.Float64() < sc.cancelP {
				cancelledAt = &now
				operate(env, api.UpdateCancel, byUpdate, m)
				return
			}
			unit := wftest.PausedUnit(st)
			continued[unit] = invariants.Unit{Name: unit, ContinuedAt: &now}
			operate(env, api.UpdateContinue, byUpdate, m)
			pausedSince = -1
		}, time.Duration(m)*time.Minute)
	}

	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(sc.strategy))
	done = true
	require.True(t, env.IsWorkflowCompleted(), "the upgrade did not end within %d simulated minutes", pollMinutes)
	err := env.GetWorkflowError()
	var st api.UpgradeStatus
	if kcpFailed != "" {
		require.Error(t, err, "KCP %s failed: the upgrade must fail", kcpFailed)
		require.Contains(t, err.Error(), kcpFailed)
	} else {
		require.NoError(t, err)
		require.NoError(t, env.GetWorkflowResult(&st))
	}

	// The workflow's own record of the operator's word (what
	// `starter lab check --upgrade` reads) agrees with the operator's.
	for _, u := range st.Units() {
		if u.Kind == api.UnitControlPlane {
			continue // the operator's word the checks hold is on groups and racks
		}
		c, was := continued[u.Name]
		switch {
		case was != (u.ContinuedAt != nil):
			problems = append(problems, fmt.Sprintf("unit %s: operator continued %v, status continuedAt %v", u.Name, was, u.ContinuedAt))
		case was && u.ContinuedAt.Before(*c.ContinuedAt):
			problems = append(problems, fmt.Sprintf("unit %s: status continuedAt %v before the operator's continue at %v", u.Name, u.ContinuedAt, c.ContinuedAt))
		}
	}
	ok := true
	for _, p := range problems {
		t.Error(p)
		ok = false
	}
	if len(st.Racks) > 0 {
		site.Units = wftest.UnitsOf(st, continued)
	}
	evs := rec.Events()
	if vs := invariants.Check(evs, site); len(vs) > 0 {
		for _, v := range vs {
			t.Errorf("violation: %s", v)
		}
		ok = false
	}
	if cancelledAt != nil {
		for _, e := range evs {
			if e.Kind == "reimage-start" && e.Time.After(*cancelledAt) {
				t.Errorf("%s reimaged at %v, after the cancel at %v", e.BMM, e.Time, *cancelledAt)
				ok = false
			}
		}
	}
	f.Mu.Lock()
	defer f.Mu.Unlock()
	if len(f.St.Leases) > 0 {
		t.Errorf("leases left behind: %+v", f.St.Leases)
		ok = false
	}
	if f.MaxKCP > 1 || f.Overlap {
		t.Errorf("fake site saw %d control-plane servers out at once, rack overlap %v", f.MaxKCP, f.Overlap)
		ok = false
	}
	stats.scenarios++
	stats.pauses += len(continued)
	stats.reimages += len(f.Reimages)
	stats.failures += len(failed)
	if cancelledAt != nil {
		stats.cancels++
	}
	if kcpFailed != "" {
		stats.kcpFailures++
	}
	return ok
}

// propertyStats shows what the drawn scenarios exercised, so a change that
// quietly stops pausing or failing anything shows in the log.
type propertyStats struct{ scenarios, pauses, cancels, kcpFailures, failures, reimages int }

// operate sends continue-update or cancel-update, as an update or as a
// signal; both must be accepted at a pause.
func operate(env *testsuite.TestWorkflowEnvironment, name string, byUpdate bool, minute int) {
	if byUpdate {
		var r wftest.UpdateResult
		wftest.SendUpdate(env, name, fmt.Sprintf("%s-%d", name, minute), &r, nil)
		return
	}
	env.SignalWorkflow(name, nil)
}
