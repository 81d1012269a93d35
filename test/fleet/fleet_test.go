// Package fleet_test rolls a release over a fleet of three lab sites on
// one Temporal, as an operator does with `starter fleet` (docs/fleet.md):
// the canary first, then the other two in one wave; and a canary that
// misses its threshold halts the rollout before the others start.
package fleet_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/fleet"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/toolbin"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
)

// commands is the starter the tests run as an operator does.
var commands toolbin.Commands

func TestMain(m *testing.M) {
	code := m.Run()
	commands.Remove()
	os.Exit(code)
}

// threeSites are three one-rack lab sites (three KCPs, two computes) on
// one dev server and worker; canaryLab, when set, is the canary's lab
// section (its faults); restartable keeps the server's database, so that
// it can be restarted.
func threeSites(t *testing.T, canaryLab string, restartable bool) []*e2e.Env {
	site := func(name, labSection string) e2e.Options {
		return e2e.Options{Mutate: func(inv *model.Inventory) {
			inv.Cluster = name
			e2e.KeepComputes(inv, 2, nil)
			if labSection != "" {
				inv.Lab = []byte(labSection)
				// A failed install is known when its node is not back
				// within the reimage limit: shortened, so that the rack
				// settles in seconds.
				d := model.Duration(30 * time.Second)
				inv.Timeouts = &model.TimeoutsSpec{Reimage: &d}
			}
		}}
	}
	first := site("fleet-a", canaryLab)
	first.Restartable = restartable
	a := e2e.Start(t, "../../examples/one-rack.yaml", first)
	var envs = []*e2e.Env{a}
	for _, n := range []string{"fleet-b", "fleet-c"} {
		o := site(n, "")
		o.Alongside = a
		envs = append(envs, e2e.Start(t, "../../examples/one-rack.yaml", o))
	}
	return envs
}

// run runs the starter and returns its stdout; want is the exit code.
func run(t *testing.T, e *e2e.Env, want int, timeout time.Duration, args ...string) string {
	t.Helper()
	out, errOut, code := e.Starter(&commands, timeout, args...)
	require.Equal(t, want, code, "starter %s\n%s%s", strings.Join(args, " "), out, errOut)
	return out
}

func status(t *testing.T, e *e2e.Env) api.FleetStatus {
	var st api.FleetStatus
	require.NoError(t, json.Unmarshal([]byte(run(t, e, 0, time.Minute, "fleet", "status", "--name", "weekly", "-o", "json")), &st))
	return st
}

// noViolations: `starter lab check` finds nothing on each site's log.
func noViolations(t *testing.T, envs []*e2e.Env) {
	for _, e := range envs {
		site, err := invariants.SiteFromInventory(e.Inventory)
		require.NoError(t, err)
		require.Empty(t, invariants.Check(e.Events(), site), "%s: starter lab check", e.Cluster)
	}
}

var upgradeFlags = []string{"--version", "4.2.0", "--wait-time-minutes", "0", "--drain-timeout", "5s", "--vm-shutdown-timeout", "5s"}

func TestE2EFleetOfThreeLabSites(t *testing.T) {
	t.Parallel()
	envs := threeSites(t, "", false)
	a := envs[0]
	run(t, a, 0, time.Minute, "fleet", "create", "--name", "weekly", "--clusters", "fleet-a,fleet-b,fleet-c",
		"--canary", "fleet-a", "--wave-size", "2", "--watch-every", "1s")
	plan := run(t, a, 0, time.Minute, "fleet", "plan", "--name", "weekly", "--version", "4.2.0")
	t.Log(plan)
	for _, want := range []string{"1/2   fleet-a  4.1.2", "2/2   fleet-b  4.1.2", "2/2   fleet-c  4.1.2"} {
		require.Contains(t, plan, want)
	}
	// Paused with its sites while the canary runs: the canary's upgrade
	// pauses before its next group or rack and the wave waits; the fleet's
	// continue continues it, and the rollout ends.
	t.Log(run(t, a, 0, time.Minute, append([]string{"fleet", "start", "--name", "weekly"}, upgradeFlags...)...))
	a.Eventually(time.Minute, "the canary runs", func() bool { return status(t, a).Rollout.Sites[0].Verdict == fleet.Running })
	t.Log(run(t, a, 0, time.Minute, "fleet", "pause", "--name", "weekly", "--sites"))
	a.Eventually(5*time.Minute, "the canary waits on the fleet's word", func() bool { return status(t, a).Rollout.Sites[0].Verdict == fleet.Waiting })
	require.Equal(t, []string{"fleet-a"}, status(t, a).Rollout.PausedSites)
	var up api.UpgradeStatus
	require.NoError(t, json.Unmarshal([]byte(run(t, a, 0, time.Minute, "upgrade", "status", "--cluster", "fleet-a", "-o", "json")), &up))
	require.Contains(t, up.DetailedStatusMessage, "paused on the operator's word before")
	require.Contains(t, up.DetailedStatusMessage, "(fleet weekly paused)")
	for _, e := range envs[1:] {
		_, err := a.Client.DescribeWorkflowExecution(a.Context(time.Minute), api.UpgradeID(e.Cluster), "")
		var nf *serviceerror.NotFound
		require.True(t, errors.As(err, &nf), "%s: started while the fleet was paused: %v", e.Cluster, err)
	}
	t.Log(run(t, a, 0, time.Minute, "fleet", "continue", "--name", "weekly"))
	out := run(t, a, 0, 15*time.Minute, "fleet", "status", "--name", "weekly", "--watch")
	t.Log(out)
	require.Contains(t, out, "continued the upgrades of [fleet-a]")
	require.Contains(t, out, "rollout of 4.2.0 completed")

	st := status(t, a)
	require.Equal(t, fleet.StateCompleted, st.State)
	for _, s := range st.Rollout.Sites {
		require.Equal(t, fleet.Succeeded, s.Verdict, s.Cluster)
	}
	// The canary's upgrade ended before either of the wave's began.
	closed := func(e *e2e.Env) (start, end time.Time) {
		d, err := a.Client.DescribeWorkflowExecution(a.Context(time.Minute), api.UpgradeID(e.Cluster), "")
		require.NoError(t, err)
		return d.GetWorkflowExecutionInfo().GetStartTime().AsTime(), d.GetWorkflowExecutionInfo().GetCloseTime().AsTime()
	}
	_, canaryEnd := closed(a)
	for _, e := range envs {
		require.Equal(t, "4.2.0", e.State().Cluster.RuntimeVersion, e.Cluster)
		if e != a {
			began, _ := closed(e)
			require.True(t, began.After(canaryEnd), "%s began %v, before the canary ended %v", e.Cluster, began, canaryEnd)
		}
	}
	noViolations(t, envs)
	a.RecordHistories(api.FleetID("weekly"))
}

func TestE2EFleetCanaryMissingItsThresholdHaltsTheRollout(t *testing.T) {
	t.Parallel()
	envs := threeSites(t, `{"faults": [{"bmm": "rack1-c1", "kind": "reimage-fails"}]}`, false)
	a := envs[0]
	run(t, a, 0, time.Minute, "fleet", "create", "--name", "weekly", "--clusters", "fleet-a,fleet-b,fleet-c",
		"--canary", "fleet-a", "--wave-size", "2", "--watch-every", "1s")
	// Every compute must succeed: rack1-c1's failed install misses it.
	out := run(t, a, 3, 15*time.Minute, append([]string{"fleet", "start", "--name", "weekly", "--wait",
		"--threshold-type", "PercentSuccess", "--threshold-value", "100", "--systemic-failures", "0"}, upgradeFlags...)...)
	t.Log(out)
	require.Contains(t, out, "fleet-a")
	require.Contains(t, out, "halted")

	st := status(t, a)
	require.Equal(t, fleet.StateHalted, st.State)
	require.Equal(t, "fleet-a", st.Rollout.Halt.Site)
	require.Equal(t, fleet.Paused, st.Rollout.Halt.Verdict)
	// Halted: the other two never start, however long it waits.
	time.Sleep(5 * time.Second)
	for _, e := range envs[1:] {
		_, err := a.Client.DescribeWorkflowExecution(a.Context(time.Minute), api.UpgradeID(e.Cluster), "")
		var nf *serviceerror.NotFound
		require.True(t, errors.As(err, &nf), "%s: an upgrade was started: %v", e.Cluster, err)
		require.Equal(t, "4.1.2", e.State().Cluster.RuntimeVersion)
	}
	// Cancelled with its sites: the canary's paused upgrade is cancelled
	// too (activities/sites CancelSites), and ends.
	out = run(t, a, 0, time.Minute, "fleet", "cancel", "--name", "weekly", "--sites")
	t.Log(out)
	require.Contains(t, out, "Cancelling")
	a.Eventually(time.Minute, "the canary's upgrade ends, cancelled", func() bool {
		d, err := a.Client.DescribeWorkflowExecution(a.Context(time.Minute), api.UpgradeID(a.Cluster), "")
		return err == nil && d.GetWorkflowExecutionInfo().GetCloseTime() != nil
	})
	a.Eventually(time.Minute, "the rollout ends, cancelled", func() bool { return status(t, a).State == fleet.StateCancelled })
	st = status(t, a)
	require.Contains(t, st.Rollout.Events[len(st.Rollout.Events)-2].What, "asked the upgrades of [fleet-a] to cancel")
	for _, s := range st.Rollout.Sites[1:] {
		require.Equal(t, fleet.Pending, s.Verdict, s.Cluster)
	}
	noViolations(t, envs)
	a.RecordHistoriesAs("halted", api.FleetID("weekly"))
}
