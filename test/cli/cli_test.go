package cli_test

import (
	"testing"

	"github.com/rackroll/rackroll/internal/e2e"
)

// TestCLIs runs every user-facing workflow from both CLIs against one lab
// site (two racks), sequentially: one site keeps the test near a minute.
func TestCLIs(t *testing.T) {
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{})
	defer env.Dump()
	c := newCLIs(t, env)
	t.Run("explore", func(t *testing.T) {
		c.t = t
		c.Temporal("workflow", "query", "--workflow-id", "cluster:"+env.Cluster, "--type", "state", "-o", "json")
		c.Tctl("workflow", "query", "--workflow_id", "cluster:"+env.Cluster, "--query_type", "state")
		c.Temporal("workflow", "execute", "--type", "BMMActionWorkflow", "--task-queue", "rackroll", "--workflow-id", "action:"+env.Cluster+":rack1-c1:901",
			"--input", `{"cluster":"`+env.Cluster+`","bmm":"rack1-c1","action":"cordon"}`, "-o", "json")
		c.Tctl("workflow", "start", "--taskqueue", "rackroll", "--workflow_type", "BMMActionWorkflow", "--workflow_id", "action:"+env.Cluster+":rack1-c1:902",
			"--input", `{"cluster":"`+env.Cluster+`","bmm":"rack1-c1","action":"uncordon"}`)
		c.Tctl("workflow", "observe", "--workflow_id", "action:"+env.Cluster+":rack1-c1:902")
		c.TemporalMayFail("workflow", "update", "execute", "--workflow-id", "cluster:"+env.Cluster, "--name", "nope")
	})
}
