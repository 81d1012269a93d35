package upgrade

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// slowCompute makes each compute server's upgrade take d (rack1-c2 takes
// d+3s); everything else finishes at once.
func slowCompute(env *testsuite.TestWorkflowEnvironment, d time.Duration) {
	ok := func(_ workflow.Context, in api.ServerInput) (api.ServerResult, error) {
		return api.ServerResult{BMM: in.BMM, Succeeded: true, RuntimeVersion: in.TargetVersion}, nil
	}
	is := func(pred func(string) bool) any {
		return mock.MatchedBy(func(in api.ServerInput) bool { return pred(in.BMM) })
	}
	env.OnWorkflow(api.ServerUpgradeWorkflowName, mock.Anything, is(func(b string) bool { return b == "rack1-c2" })).After(d + 3*time.Second).Return(ok)
	env.OnWorkflow(api.ServerUpgradeWorkflowName, mock.Anything, is(func(b string) bool { return strings.Contains(b, "-c") })).After(d).Return(ok)
	env.OnWorkflow(api.ServerUpgradeWorkflowName, mock.Anything, mock.Anything).Return(ok)
}

// The upgrade's status query is complete by itself: while a rack runs, the
// rack child reports its servers to the parent as they start and finish,
// at most reportEvery (a minute) apart: rack1-c2 finishes 3 s after
// rack1-c1, so its report waits for the timer.
func TestStatusShowsRackServersLive(t *testing.T) {
	_, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	slowCompute(env, 10*time.Minute)
	at := map[time.Duration]*api.UpgradeStatus{}
	for _, d := range []time.Duration{5 * time.Minute, 10*time.Minute + 30*time.Second, 11*time.Minute + time.Second, 25 * time.Minute} {
		at[d] = &api.UpgradeStatus{}
		env.RegisterDelayedCallback(func() {
			wftest.Query(t, env, at[d])
		}, d)
	}
	// Two at a time: rack1-c1 and c2 from 0, c3 when c1 is done at 10m, c4
	// when c2 is done at 10m3s, c5 and c6 at 20m.
	// No canary: the rack runs as one child (guards_test.go has
	// the canary's own).
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{MaxUnavailable: 2, WaitTimeMinutes: wftest.Intp(0), SystemicFailures: wftest.Intp(0)}))
	require.NoError(t, env.GetWorkflowError())

	for _, tc := range []struct {
		at        time.Duration
		running   []string
		succeeded int
	}{
		{5 * time.Minute, []string{"rack1-c1", "rack1-c2"}, 0},
		{10*time.Minute + 30*time.Second, []string{"rack1-c2", "rack1-c3"}, 1}, // c2's end is held back
		{11*time.Minute + time.Second, []string{"rack1-c3", "rack1-c4"}, 2},
		{25 * time.Minute, []string{"rack1-c5", "rack1-c6"}, 4},
	} {
		st := at[tc.at]
		require.Equal(t, api.PhaseCompute, st.Phase, "at %v", tc.at)
		require.Equal(t, api.RackUpgradeID("site-a", "rack1"), st.CurrentRun, "at %v", tc.at)
		r := st.Racks[0]
		require.Equal(t, tc.running, r.Running(), "at %v", tc.at)
		require.Equal(t, tc.succeeded, r.Succeeded, "at %v", tc.at)
		require.Equal(t, api.StatePending, r.Servers[7].State, "at %v: rack1-c8 waits", tc.at)
	}
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	for _, r := range st.Racks {
		require.Equal(t, 8, r.Succeeded, r.Name)
		require.Empty(t, r.Running(), r.Name)
	}
}

// A server already at the target is not reimaged and counts toward its
// rack's threshold, as Skipped: the summary tells it from this run's work.
func TestServersAlreadyAtTargetAreSkipped(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	for _, b := range []string{"rack2-c1", "rack2-c2", "rack2-c3"} {
		f.Bmm(b).RuntimeVersion = "4.2.0"
	}
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{WaitTimeMinutes: wftest.Intp(0)}))
	require.NoError(t, env.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	r := st.Racks[1]
	require.Equal(t, api.StateSucceeded, r.State)
	require.Equal(t, 8, r.Succeeded)
	require.Equal(t, 3, r.Skipped)
	require.Equal(t, api.StateSkipped, r.Servers[0].State)
	require.NotContains(t, f.Reimages, "rack2-c1")
	require.Zero(t, st.Racks[0].Skipped)
}
