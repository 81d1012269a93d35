package rollout

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/sites"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/fleet"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

// fakeFleet plays the sites of a fleet at the activity level, on the test
// environment's clock: a started site runs for its duration, then shows
// its outcome (succeeded unless told otherwise).
type fakeFleet struct {
	env *testsuite.TestWorkflowEnvironment
	mu  sync.Mutex
	// per site: how long its upgrade takes, and what it shows then
	dur     map[string]time.Duration
	outcome map[string]fleet.Reading
	started map[string]time.Time
	// refused are the sites whose start is refused, with why.
	refused map[string]string
	// waves is each StartSites call's sites, in order.
	waves     [][]string
	cancelled []string
	// paused: the sites told to pause, which show waiting until
	// continued; pauses and continues are each call's sites.
	paused            map[string]bool
	pauses, continues [][]string
}

func newFakeFleet(env *testsuite.TestWorkflowEnvironment) *fakeFleet {
	f := &fakeFleet{env: env, dur: map[string]time.Duration{}, outcome: map[string]fleet.Reading{}, started: map[string]time.Time{}, refused: map[string]string{}, paused: map[string]bool{}}
	env.RegisterWorkflow(FleetWorkflow)
	env.RegisterActivity(f.StartSites)
	env.RegisterActivity(f.WatchSites)
	env.RegisterActivity(f.CancelSites)
	env.RegisterActivity(f.PauseSites)
	env.RegisterActivity(f.ContinueSites)
	return f
}

func (f *fakeFleet) PauseSites(_ context.Context, in sites.PauseInput) (sites.Told, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pauses = append(f.pauses, in.Clusters)
	for _, c := range in.Clusters {
		f.paused[c] = true
	}
	return sites.Told{Took: in.Clusters}, nil
}

func (f *fakeFleet) ContinueSites(_ context.Context, in sites.PauseInput) (sites.Told, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	clusters := in.Clusters
	f.continues = append(f.continues, clusters)
	for _, c := range clusters {
		delete(f.paused, c)
	}
	return sites.Told{Took: clusters}, nil
}

// Nil receivers of the real type name the activities in the workflow; the
// fake's methods are registered under the same names.
func (f *fakeFleet) StartSites(_ context.Context, in sites.StartInput) ([]sites.Started, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waves = append(f.waves, in.Sites)
	var out []sites.Started
	for _, c := range in.Sites {
		if why, ok := f.refused[c]; ok {
			out = append(out, sites.Started{Reading: fleet.Reading{Cluster: c, Verdict: fleet.Failed, Detail: "not started: " + why}})
			continue
		}
		if _, ok := f.started[c]; !ok {
			f.started[c] = f.env.Now()
		}
		out = append(out, sites.Started{Reading: fleet.Reading{Cluster: c, Verdict: fleet.Running}, RunID: "run-" + c})
	}
	return out, nil
}

func (f *fakeFleet) WatchSites(_ context.Context, in sites.WatchInput) ([]fleet.Reading, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.env.Now()
	var out []fleet.Reading
	for _, s := range in.Sites {
		out = append(out, f.reading(s.Cluster, now))
	}
	return out, nil
}

func (f *fakeFleet) CancelSites(_ context.Context, clusters []string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancelled = append(f.cancelled, clusters...)
	return nil, nil
}

func (f *fakeFleet) reading(c string, now time.Time) fleet.Reading {
	began, ok := f.started[c]
	switch {
	case !ok:
		return fleet.Reading{Cluster: c, Verdict: fleet.Pending}
	case f.paused[c]:
		return fleet.Reading{Cluster: c, Verdict: fleet.Waiting, Detail: "paused before its next rack"}
	case now.Before(began.Add(f.duration(c))):
		return fleet.Reading{Cluster: c, Verdict: fleet.Running}
	}
	if o, ok := f.outcome[c]; ok {
		o.Cluster = c
		return o
	}
	return fleet.Reading{Cluster: c, Verdict: fleet.Succeeded}
}

func (f *fakeFleet) duration(c string) time.Duration {
	if d, ok := f.dur[c]; ok {
		return d
	}
	return 2 * time.Hour
}

// set changes what site c shows from now on (the operator at the site).
func (f *fakeFleet) set(c string, r fleet.Reading, more time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.outcome[c] = r
	if more > 0 {
		f.dur[c] = f.env.Now().Sub(f.started[c]) + more
	}
}

// startedAt is when the fake started c (false: never).
func (f *fakeFleet) startedAt(c string) (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.started[c]
	return t, ok
}

func (f *fakeFleet) startCalls() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]string(nil), f.waves...)
}

// names are n site names.
func names(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("site-%02d", i+1))
	}
	return out
}

// tuned: a read every five minutes, so that a day of rollout is a few
// hundred events.
var tuned = api.FleetTuning{WatchEvery: 5 * time.Minute, WatchFor: 5 * time.Minute, UnreachableAfter: 10 * time.Minute}

// startRollout sends fleet-start of 4.2.0 at once.
func startRollout(t *testing.T, env *testsuite.TestWorkflowEnvironment) {
	env.RegisterDelayedCallback(func() {
		var res wftest.UpdateResult
		wftest.SendUpdate(env, api.UpdateFleetStart, "start", &res, api.FleetStartRequest{TargetVersion: "4.2.0", By: "test"})
		require.NoError(t, res.Rejected)
	}, time.Second)
}

// at runs fn at d on the workflow clock.
func at(env *testsuite.TestWorkflowEnvironment, d time.Duration, fn func()) {
	env.RegisterDelayedCallback(fn, d)
}

// status queries the fleet.
func status(t *testing.T, env *testsuite.TestWorkflowEnvironment) api.FleetStatus {
	t.Helper()
	var st api.FleetStatus
	wftest.Query(t, env, &st)
	return st
}

// endWhen cancels the idle fleet once its rollout ended, so that
// ExecuteWorkflow returns; the last status is kept in *last.
func endWhen(t *testing.T, env *testsuite.TestWorkflowEnvironment, within time.Duration, last *api.FleetStatus) {
	for d := time.Hour; d <= within; d += time.Hour {
		at(env, d, func() {
			if st := status(t, env); st.Rollout != nil && st.Rollout.FinishedAt != nil && last.Rollout == nil {
				*last = st
				env.CancelWorkflow()
			}
		})
	}
}

// rollThree runs fleet "prod" of three sites — a canary, then a wave of
// two — until its rollout ends (within twelve hours), and returns the
// rollout's last status.
func rollThree(t *testing.T, env *testsuite.TestWorkflowEnvironment) api.FleetStatus {
	var last api.FleetStatus
	endWhen(t, env, 12*time.Hour, &last)
	all := names(3)
	env.ExecuteWorkflow(FleetWorkflow, api.FleetInput{Spec: fleet.Spec{Name: "prod", Clusters: all, Canary: all[:1], WaveSize: 2}, Tuning: tuned})
	return last
}
