package fleet_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/fleet"
	"github.com/rackroll/rackroll/worker/wiring"
	"github.com/stretchr/testify/require"
)

// The worker stopped and the Temporal server restarted while the canary
// upgrades: the rollout goes on where it was — no site started twice, no
// halt from the moment the restarted server lists no poller — and
// completes.
func TestE2EFleetSurvivesWorkerAndServerRestarts(t *testing.T) {
	t.Parallel()
	envs := threeSites(t, "", true)
	a := envs[0]
	run(t, a, 0, time.Minute, "fleet", "create", "--name", "weekly", "--clusters", "fleet-a,fleet-b,fleet-c",
		"--canary", "fleet-a", "--wave-size", "2", "--watch-every", "1s")
	run(t, a, 0, time.Minute, append([]string{"fleet", "start", "--name", "weekly"}, upgradeFlags...)...)
	a.Eventually(2*time.Minute, "the canary reimaging", func() bool { return a.Lab.ReimageCounts()["rack1-mgmt1"] > 0 })

	a.Worker.Stop()
	a.RestartServer()
	a.StartWorker(&wiring.Options{PollInterval: 200 * time.Millisecond, BMCPowerOnTimeout: 15 * time.Second})

	out, errOut, code := a.Starter(&commands, 15*time.Minute, "fleet", "status", "--name", "weekly", "--watch", "-o", "json")
	t.Log(errOut)
	require.Zero(t, code, "%s%s", out, errOut)
	var st api.FleetStatus
	require.NoError(t, json.Unmarshal([]byte(out), &st))
	require.Equal(t, fleet.StateCompleted, st.State)
	for _, s := range st.Rollout.Sites {
		require.Equal(t, fleet.Succeeded, s.Verdict, s.Cluster)
		// One upgrade per site: the run the fleet started is the chain's
		// first.
		d, err := a.Client.DescribeWorkflowExecution(a.Context(time.Minute), api.UpgradeID(s.Cluster), "")
		require.NoError(t, err)
		require.Equal(t, s.RunID, d.GetWorkflowExecutionInfo().GetFirstRunId(), s.Cluster)
	}
	for _, e := range envs {
		for name, n := range e.Lab.ReimageCounts() {
			require.Equal(t, 1, n, "%s %s reimaged once", e.Cluster, name)
		}
	}
	noViolations(t, envs)
}
