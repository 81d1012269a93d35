package cli_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
)

// healthMonitor starts the monitor with the Temporal CLI, reads its status
// with both CLIs once it has looked at the nodes, and cancels it.
func healthMonitor(t *testing.T, c *clis) {
	cluster, id := c.env.Cluster, api.MonitorID(c.env.Cluster)
	temporalStart(t, c, api.HealthMonitorWorkflowName, id, fmt.Sprintf(`{"cluster":%q}`, cluster),
		"Health monitor of cluster "+cluster, "monitor")
	c.env.Eventually(time.Minute, "the monitor's first round", func() bool {
		v, err := c.env.Client.QueryWorkflow(context.Background(), id, "", api.QueryStatus)
		var st api.MonitorStatus
		return err == nil && v.Get(&st) == nil && st.Rounds > 0
	})
	var st api.MonitorStatus
	temporalQuery(t, c, id, api.QueryStatus, &st)
	if st.Cluster != cluster || st.LastObservation.IsZero() || st.LastError != "" || len(st.Active) != 0 {
		t.Fatalf("monitor status: %+v", st)
	}
	var st2 api.MonitorStatus
	tctlQuery(t, c, id, api.QueryStatus, &st2)
	if st2.Cluster != cluster {
		t.Fatalf("tctl monitor status: cluster %q", st2.Cluster)
	}
	c.Temporal("workflow", "cancel", "--workflow-id", id)
}
