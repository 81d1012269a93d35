package main

// End-to-end tests of the starter against the dev server and the lab.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"sigs.k8s.io/yaml"
)

// End to end through the starter's own code path (lease first, then start).
func TestE2EBMMStarter(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../examples/four-rack.yaml", e2e.Options{})
	ctx := env.Context(3 * time.Minute)
	var kcp []string
	for _, b := range env.State().Cluster.BMMs {
		if b.HasRole(model.RoleKCP) {
			kcp = append(kcp, b.Name)
		}
	}
	require.Len(t, kcp, 3)

	t.Run("two KCP restarts at once: exactly one is accepted", func(t *testing.T) {
		var wg sync.WaitGroup
		runs := make([]client.WorkflowRun, 2)
		errs := make([]error, 2)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runs[i], errs[i] = startAction(ctx, env.Client, api.ActionInput{Cluster: env.Cluster, BMM: kcp[i], Action: api.ActionRestart})
			}()
		}
		wg.Wait()
		ok, refused := 0, 1
		if errs[0] != nil {
			ok, refused = 1, 0
		}
		require.NoError(t, errs[ok])
		require.Error(t, errs[refused], "one of two concurrent KCP disruptions must be refused")
		require.ErrorContains(t, errs[refused], "restart of "+kcp[refused]+" refused: bmm "+kcp[refused]+" is a KCP server and "+runs[ok].GetID())
		var ce *codedError
		require.True(t, errors.As(errs[refused], &ce))
		require.Equal(t, exitError, ce.code)
		require.Regexp(t, `^action:site-a:`+kcp[ok]+`:\d+$`, runs[ok].GetID(), "the ledger assigned the id")

		res, err := waitAction(ctx, runs[ok])
		require.NoError(t, err)
		require.Contains(t, res.Message, "restarted "+kcp[ok])
		require.Empty(t, env.State().Leases)

		// Once it is done, the other KCP may go.
		run, err := startAction(ctx, env.Client, api.ActionInput{Cluster: env.Cluster, BMM: kcp[refused], Action: api.ActionRestart})
		require.NoError(t, err)
		_, err = waitAction(ctx, run)
		require.NoError(t, err)
	})

	t.Run("a start that fails gives the lease back", func(t *testing.T) {
		const name = "rack3-c1"
		// Something already runs under the id the ledger will hand out next.
		next := api.ActionID(env.Cluster, name, env.State().ActionSeq+1)
		squatter, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: next, TaskQueue: api.TaskQueue},
			api.TroubleshootWorkflowName, api.TroubleshootInput{Cluster: env.Cluster, BMM: name, Problem: api.ProblemHardware})
		require.NoError(t, err)
		defer env.Client.TerminateWorkflow(context.Background(), squatter.GetID(), "", "test done")
		_, err = startAction(ctx, env.Client, api.ActionInput{Cluster: env.Cluster, BMM: name, Action: api.ActionCordon})
		require.ErrorContains(t, err, "its lease was released")
		require.Empty(t, env.State().Leases)
	})

	t.Run("a failed action exits 2 with the reason", func(t *testing.T) {
		require.NoError(t, env.Lab.SetFault("rack3-c2", "power-on-fails", 0, false))
		run, err := startAction(ctx, env.Client, api.ActionInput{Cluster: env.Cluster, BMM: "rack3-c2", Action: api.ActionPowerOff, SkipShutdown: true})
		require.NoError(t, err)
		_, err = waitAction(ctx, run)
		require.NoError(t, err)
		run, err = startAction(ctx, env.Client, api.ActionInput{Cluster: env.Cluster, BMM: "rack3-c2", Action: api.ActionStart})
		require.NoError(t, err)
		_, err = waitAction(ctx, run)
		var ce *codedError
		require.True(t, errors.As(err, &ce), "%v", err)
		require.Equal(t, exitFailed, ce.code)
		require.ErrorContains(t, err, "start of rack3-c2 failed: power on")
		require.Empty(t, env.State().Leases)
	})
}

// `cluster history` on the dev server: a restart and an upgrade touched
// rack1-c3 (after the canary, in the rack's own child); the history lists
// both, the upgrade with the rack and runtime upgrades it ran under, and
// nothing of rack1-c2.
func TestE2EClusterHistory(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../examples/two-rack.yaml", e2e.Options{})
	ctx := env.Context(5 * time.Minute)
	const bmm = "rack1-c3"

	action, err := startAction(ctx, env.Client, api.ActionInput{Cluster: env.Cluster, BMM: bmm, Action: api.ActionRestart})
	require.NoError(t, err)
	_, err = waitAction(ctx, action)
	require.NoError(t, err)

	up, err := env.StartUpgrade(ctx, "4.2.0")
	require.NoError(t, err)
	require.NoError(t, up.Get(ctx, nil))

	// Visibility is written asynchronously: wait until all four are listed.
	var rows []historyRow
	env.Eventually(30*time.Second, "four history rows", func() bool {
		out, _, err := run(t, "--address", env.Server.Address, "cluster", "history", "--cluster", env.Cluster, "--bmm", bmm, "-o", "json")
		require.NoError(t, err)
		rows = nil
		require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
		return len(rows) == 4
	})
	byID := map[string]historyRow{}
	for _, r := range rows {
		byID[r.WorkflowID] = r
		require.Equal(t, "completed", r.Status, r.WorkflowID)
	}
	require.Equal(t, "restart", byID[action.GetID()].Operation)
	require.Contains(t, byID[action.GetID()].Result, "restarted "+bmm)

	server := byID[api.ServerUpgradeID(env.Cluster, bmm)]
	require.Equal(t, "upgrade", server.Operation)
	require.Equal(t, api.RackUpgradeID(env.Cluster, "rack1"), server.Parent)
	require.Contains(t, server.Result, "upgraded to 4.2.0")
	require.Equal(t, api.UpgradeID(env.Cluster), byID[api.RackUpgradeID(env.Cluster, "rack1")].Parent)
	require.Equal(t, "runtime-upgrade", byID[api.UpgradeID(env.Cluster)].Operation)
	require.True(t, rows[0].Time.Before(rows[len(rows)-1].Time) || rows[0].Time.Equal(rows[len(rows)-1].Time))

	out, _, err := run(t, "--address", env.Server.Address, "cluster", "history", "--cluster", env.Cluster, "--bmm", bmm)
	require.NoError(t, err)
	require.Contains(t, out, "WORKFLOW ID")
	require.Contains(t, out, api.ServerUpgradeID(env.Cluster, bmm))
	require.NotContains(t, out, "rack1-c2")
	t.Log("\n" + strings.TrimSpace(out))
}

// --watch and -o yaml against the dev server and the lab, through the
// CLI. Assertions are on outcomes and exit codes, never on how many
// progress lines a run happened to print.
func TestE2EWatch(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../examples/two-rack.yaml", e2e.Options{})
	ctx := env.Context(5 * time.Minute)
	cli := func(args ...string) (string, string, error) {
		return run(t, append(args, "--address", env.Server.Address)...)
	}

	t.Run("bmm restart --watch ends like --wait", func(t *testing.T) {
		out, _, err := cli("bmm", "restart", "--cluster", env.Cluster, "--bmm", "rack1-c1", "--watch")
		require.NoError(t, err, out)
		require.Regexp(t, `(?m)^action:`+env.Cluster+`:rack1-c1:\d+$`, out, "the id comes first")
		require.Regexp(t, `(?m)^\d\d:\d\d:\d\d restart rack1-c1( |$)`, out, "progress lines off a terminal")
		require.Contains(t, out, "restarted rack1-c1")
		t.Log("\n" + out)

		// The view names steps by the summaries the workflow gave its
		// activities, read from the history.
		id := strings.SplitN(out, "\n", 2)[0]
		aw := &actionWatch{c: env.Client, id: id, summaries: map[string]string{}}
		aw.readSummaries(ctx)
		var sums []string
		for _, s := range aw.summaries {
			sums = append(sums, s)
		}
		require.Contains(t, sums, "Wait for rack1-c1 Ready")
	})

	t.Run("a failed action --watch exits 2 with the reason", func(t *testing.T) {
		require.NoError(t, env.Lab.SetFault("rack2-c2", "power-on-fails", 0, false))
		_, _, err := cli("bmm", "power-off", "--cluster", env.Cluster, "--bmm", "rack2-c2", "--skip-shutdown", "--wait")
		require.NoError(t, err)
		out, _, err := cli("bmm", "start", "--cluster", env.Cluster, "--bmm", "rack2-c2", "--watch")
		t.Log("\n" + out)
		var ce *codedError
		require.True(t, errors.As(err, &ce), "%v", err)
		require.Equal(t, exitFailed, ce.code)
		require.ErrorContains(t, err, "start of rack2-c2 failed: power on")
	})

	t.Run("remediation show --watch -o json", func(t *testing.T) {
		_, _, err := cli("remediation", "show", "--cluster", env.Cluster, "--bmm", "rack1-c2", "--watch")
		require.ErrorContains(t, err, "no remediation of rack1-c2")

		// Started by hand, as the monitor would for a read-only root
		// filesystem; the BMM is healthy, so the first rung recovers it.
		_, err = env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.RemediationID(env.Cluster, "rack1-c2"), TaskQueue: api.TaskQueue},
			api.RemediationWorkflowName, api.RemediationInput{Cluster: env.Cluster, BMM: "rack1-c2", Trigger: remediate.ReadOnlyRootFS, Since: time.Now()})
		require.NoError(t, err)
		out, progress, err := cli("remediation", "show", "--cluster", env.Cluster, "--bmm", "rack1-c2", "--watch", "-o", "json")
		require.NoError(t, err, progress)
		var st api.RemediationStatus
		require.NoError(t, json.Unmarshal([]byte(out), &st), "stdout holds only the final status:\n%s", out)
		require.True(t, st.Finished && st.Recovered, "%+v", st)
		require.Contains(t, progress, "rack1-c2", "progress went to stderr")
		t.Log("\n" + progress)
	})

	t.Run("read commands -o yaml", func(t *testing.T) {
		reads := [][]string{
			{"cluster", "show", "--cluster", env.Cluster},
			{"cluster", "history", "--cluster", env.Cluster, "--bmm", "rack1-c1"},
			{"upgrade", "plan", "--cluster", env.Cluster, "--version", "4.2.0"},
			{"remediation", "show", "--cluster", env.Cluster, "--bmm", "rack1-c2"},
		}
		if withLab {
			reads = append(reads, []string{"lab", "status", "--inventory", env.InvPath})
		}
		for _, args := range reads {
			out, _, err := cli(append(args, "-o", "yaml")...)
			require.NoError(t, err, "%v", args)
			var v any
			require.NoError(t, yaml.Unmarshal([]byte(out), &v), "%v:\n%s", args, out)
			require.NotNil(t, v, "%v printed nothing", args)
		}
	})

	t.Run("upgrade plan judges each rack's first batch", func(t *testing.T) {
		out, _, err := cli("upgrade", "plan", "--cluster", env.Cluster, "--version", "4.2.0")
		require.NoError(t, err, out)
		require.Contains(t, out, "Capacity ok: rack1: its ", "the canary's batch, read with the site's kubeconfig")
		require.Contains(t, out, "Capacity ok: rack2: its ")
		out, _, err = cli("upgrade", "plan", "--cluster", env.Cluster, "--version", "4.2.0", "--kubeconfig", "/nonexistent", "-o", "json")
		require.NoError(t, err, out)
		var plan struct{ Capacity []api.CapacityCheck }
		require.NoError(t, json.Unmarshal([]byte(out), &plan))
		require.Len(t, plan.Capacity, 2)
		require.True(t, plan.Capacity[0].NotChecked, "%+v", plan.Capacity[0])
		require.Contains(t, plan.Capacity[0].Message, "rack1: capacity not checked from this machine: load kubeconfig from /nonexistent")
	})

	t.Run("upgrade start refused without its image", func(t *testing.T) {
		env.Lab.SetImageMissing("4.2.0", true)
		defer env.Lab.SetImageMissing("4.2.0", false)
		url := strings.ReplaceAll(env.State().ImageURLTemplate, "{version}", "4.2.0")
		out, _, err := cli("upgrade", "plan", "--cluster", env.Cluster, "--version", "4.2.0")
		require.ErrorContains(t, err, "this upgrade would be refused", "the plan exits non-zero")
		require.ErrorContains(t, err, url+" is not usable: 404 Not Found")
		require.Contains(t, out+err.Error(), "Image "+url+": 404 Not Found: the upgrade would be refused")
		out, _, err = cli("upgrade", "start", "--cluster", env.Cluster, "--version", "4.2.0", "--wait-time-minutes", "0")
		require.Error(t, err, out)
		for _, want := range []string{"upgrade of " + env.Cluster + " to 4.2.0 refused", url, "404"} {
			require.ErrorContains(t, err, want)
		}
		_, err = env.Client.DescribeWorkflowExecution(ctx, api.UpgradeID(env.Cluster), "")
		var nf *serviceerror.NotFound
		require.ErrorAs(t, err, &nf, "no upgrade was started")
	})

	// Last: it upgrades the whole site.
	t.Run("upgrade status --watch -o json", func(t *testing.T) {
		// rack2-c2 was left off by the failed start above.
		require.NoError(t, env.Lab.SetFault("rack2-c2", "power-on-fails", 0, true))
		out, _, err := cli("bmm", "start", "--cluster", env.Cluster, "--bmm", "rack2-c2", "--wait")
		require.NoError(t, err, out)
		out, _, err = cli("upgrade", "start", "--cluster", env.Cluster, "--version", "4.2.0", "--wait-time-minutes", "0",
			"--drain-timeout", "5s", "--vm-shutdown-timeout", "5s")
		require.NoError(t, err, out)
		// The operator's pause, asked at once: the watch stops at it (exit
		// 3) with the reason; continue goes on.
		out, _, err = cli("upgrade", "pause", "--cluster", env.Cluster, "--reason", "change freeze")
		require.NoError(t, err, out)
		require.Contains(t, out, "pausing before")
		out, _, err = cli("upgrade", "status", "--cluster", env.Cluster, "--watch", "-o", "json")
		var ce *codedError
		require.True(t, errors.As(err, &ce) && ce.code == exitPaused, "exit 3 at the pause: %v", err)
		var held api.UpgradeStatus
		require.NoError(t, json.Unmarshal([]byte(out), &held), out)
		require.Contains(t, held.DetailedStatusMessage, "paused on the operator's word before")
		require.Contains(t, held.DetailedStatusMessage, "(change freeze)")
		out, _, err = cli("upgrade", "continue", "--cluster", env.Cluster)
		require.NoError(t, err, out)
		out, progress, err := cli("upgrade", "status", "--cluster", env.Cluster, "--watch", "-o", "json")
		require.NoError(t, err, progress)
		var st api.UpgradeStatus
		require.NoError(t, json.Unmarshal([]byte(out), &st), "stdout holds only the final status:\n%s", out)
		require.Equal(t, api.PhaseDone, st.Phase, "%+v", st)
		require.Equal(t, "4.2.0", st.TargetVersion)
		require.Contains(t, progress, "servers upgraded", "the summary went to stderr")
		t.Log("\n" + progress)
	})
}
