package metrics_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/metrics"
	"github.com/rackroll/rackroll/internal/metrics/prom"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

func recordAll(ctx workflow.Context) error {
	h := workflow.GetMetricsHandler(ctx)
	metrics.ServerUpgraded(h, "site-a", true)
	metrics.ServerUpgraded(h, "site-a", false)
	metrics.RackUpgraded(h, "site-a", true)
	metrics.Remediated(h, "site-a", "compute", false, true)
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10_000_000_000})
	return workflow.ExecuteActivity(ctx, rejectLease).Get(ctx, nil)
}

func rejectLease(ctx context.Context) error {
	metrics.LeaseRejected(activity.GetMetricsHandler(ctx), "site-a", "restart")
	return nil
}

// A workflow and an activity record through the SDK's handlers and the
// endpoint shows every rackroll counter with its tags. (The SDK's test
// environment emits none of the SDK's own temporal_* metrics; the
// multi-site end-to-end test checks those on a real worker.)
func TestMetricsEndpointShowsRackrollAndSDKMetrics(t *testing.T) {
	e, err := prom.Serve("127.0.0.1:0")
	require.NoError(t, err)
	defer e.Close()

	var s testsuite.WorkflowTestSuite
	s.SetMetricsHandler(e.Handler)
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(recordAll)
	env.RegisterActivity(rejectLease)
	env.ExecuteWorkflow(recordAll)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())

	resp, err := http.Get("http://" + e.Addr + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	body := string(b)
	for _, want := range []string{
		`rackroll_servers_upgraded_total{cluster="site-a",`,
		`rackroll_rack_upgrades_total{`,
		`rackroll_remediations_total{`,
		`rackroll_lease_rejections_total{`,
		`outcome="succeeded"`, `outcome="failed"`, `outcome="threshold_met"`, `outcome="recovered"`, `operation="restart"`,
		`service_name="rackroll-worker"`,
	} {
		require.Contains(t, body, want)
	}
	t.Log(grep(body, "rackroll_"))
}

func grep(body, prefix string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
