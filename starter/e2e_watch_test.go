package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"sigs.k8s.io/yaml"
)

// --watch and -o yaml against the dev server and the lab, through the
// CLI. Assertions are on outcomes and exit codes, never on how many
// progress lines a run happened to print.
func TestE2EWatch(t *testing.T) {
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
		for _, args := range [][]string{
			{"cluster", "show", "--cluster", env.Cluster},
			{"cluster", "history", "--cluster", env.Cluster, "--bmm", "rack1-c1"},
			{"upgrade", "plan", "--cluster", env.Cluster, "--version", "4.2.0"},
			{"lab", "status", "--inventory", env.InvPath},
			{"remediation", "show", "--cluster", env.Cluster, "--bmm", "rack1-c2"},
		} {
			out, _, err := cli(append(args, "-o", "yaml")...)
			require.NoError(t, err, "%v", args)
			var v any
			require.NoError(t, yaml.Unmarshal([]byte(out), &v), "%v:\n%s", args, out)
			require.NotNil(t, v, "%v printed nothing", args)
		}
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
