package cli_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/fleet"
)

// fleetOfOne drives FleetWorkflow as docs/temporal-cli.md does: a fleet of
// this one site, a rollout of the version it already runs (the site is
// `current`: not started, so no server is touched), and a pause refused
// once the rollout ended.
func fleetOfOne(t *testing.T, c *clis) {
	cluster, id := c.env.Cluster, api.FleetID("cli")
	version := c.env.State().Cluster.RuntimeVersion
	temporalStart(t, c, api.FleetWorkflowName, id,
		fmt.Sprintf(`{"spec":{"name":"cli","clusters":[%q],"waveSize":1},"tuning":{"watchEvery":1000000000}}`, cluster), "Fleet cli", "fleet")
	c.Temporal("workflow", "update", "execute", "--workflow-id", id, "--name", api.UpdateFleetStart,
		"--input", fmt.Sprintf(`{"targetVersion":%q,"updateStrategy":{"strategyType":"Rack","waitTimeMinutes":0}}`, version))
	var st api.FleetStatus
	c.env.Eventually(time.Minute, "the rollout completes", func() bool {
		temporalQuery(t, c, id, api.QueryStatus, &st)
		return st.State == fleet.StateCompleted
	})
	if s := st.Rollout.Sites[0]; s.Cluster != cluster || s.Verdict != fleet.Current || s.StartedAt != nil {
		t.Fatalf("the site already at %s: %+v", version, s)
	}
	_, errOut, ok := c.TemporalMayFail("workflow", "update", "execute", "--workflow-id", id, "--name", api.UpdateFleetPause, "--input", "{}")
	if ok || !strings.Contains(errOut, "no rollout in progress to be paused (Completed)") {
		t.Fatalf("fleet-pause after the rollout: ok %v, %s", ok, errOut)
	}
	c.Temporal("workflow", "terminate", "--workflow-id", id, "--reason", "cli test done")
}
