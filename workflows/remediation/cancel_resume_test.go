package remediation

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// What a failover started again finishes of an interrupted one
// (TestPropertyConvergeAfterInterruptions seeds 20261123, 20261151,
// 20261161, 20261180, 20261300, 20261393, 20261469).
func TestResumedFailover(t *testing.T) {
	status := func(c model.Cluster, name, st string) model.Cluster {
		for i := range c.BMMs {
			if c.BMMs[i].Name == name {
				c.BMMs[i].DetailedStatus = st
			}
		}
		return c
	}
	for _, tc := range []struct {
		name     string
		cluster  model.Cluster
		resumed  bool
		newSpare string
	}{
		{"nothing done yet: plan afresh", modeltest.Cluster("rack1-m1:kcp!", "rack2-m1:kcp-spare", "rack1-m2:management/a", "rack2-m2:management/b"), false, ""},
		{"spare promoted, no new spare yet", modeltest.Cluster("rack1-m1:kcp!", "rack2-m1:kcp", "rack1-m2:management/a", "rack2-m2:management/b"), true, "rack1-m2"},
		{"spare promoted, new spare labelled", modeltest.Cluster("rack1-m1:kcp!", "rack2-m1:kcp", "rack1-m2:kcp-spare", "rack2-m2:management/b"), true, ""},
		{"relabelled, reprovision cut short", status(modeltest.Cluster("rack1-m1:management/a", "rack2-m1:kcp", "rack1-m2:kcp-spare", "rack2-m2:management/b"),
			"rack1-m1", model.BMMDeprovisioning), true, ""},
		{"done: a management server that serves", modeltest.Cluster("rack1-m1:management/a", "rack2-m1:kcp", "rack1-m2:kcp-spare", "rack2-m2:management/b"), false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := resumedFailover(tc.cluster, "rack1-m1")
			require.Equal(t, tc.resumed, ok)
			if !ok {
				return
			}
			require.Empty(t, p.Spare, "no second promotion")
			require.Equal(t, tc.newSpare, p.NewSpare)
			require.Equal(t, "rack1-m1", p.Failed)
			require.Equal(t, model.RoleManagement, p.RoleChanges[len(p.RoleChanges)-1].To)
		})
	}
}

// A failover cancelled while it provisions the failed server again says so
// and where, instead of ending with no error; the server is left
// provisioning (its clock running) for a re-run or the provisioning trigger.
func TestFailoverCancelledDuringReprovisionSaysSo(t *testing.T) {
	r, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	r.Bmm("rack2-mgmt1").DetailedStatusMessage = model.UnhealthyMessage
	r.Delay["Reimage"] = 5 * time.Hour
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
	env.ExecuteWorkflow(KCPFailoverWorkflow, api.FailoverInput{Cluster: r.St.Cluster.Name, Failed: "rack2-mgmt1"})
	require.NoError(t, env.GetWorkflowError())
	var st api.FailoverStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.True(t, st.Promoted, "the spare was promoted before the cut")
	require.Contains(t, st.Error, "cancelled during reprovision")
	b := r.Bmm("rack2-mgmt1")
	require.Equal(t, []model.Role{model.RoleManagement}, b.Roles)
	require.NotNil(t, b.ProvisioningSince, "the provisioning clock runs for the trigger")
	require.Empty(t, r.St.Leases, "every failover lease released")
}

// A remediation cancelled in its reprovision stops there: no later rung
// runs (each would fail at once on the cancelled context and mark the
// server Unhealthy without trying).
func TestRemediationCancelledStopsClimbing(t *testing.T) {
	r, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	r.Set("rack1-c1", func(n *wftest.FakeNode) { n.Rofs = true })
	r.Delay["Reimage"] = 5 * time.Hour
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
	env.ExecuteWorkflow(RemediationWorkflow, api.RemediationInput{Cluster: "site-a", BMM: "rack1-c1", Trigger: remediate.ReadOnlyRootFS, Since: env.Now()})
	require.NoError(t, env.GetWorkflowError())
	var st api.RemediationStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, []string{"reprovision:failed"}, ranSteps(st.Steps))
	require.Equal(t, "cancelled during reprovision", st.Outcome)
	require.NotEqual(t, model.UnhealthyMessage, r.Bmm("rack1-c1").DetailedStatusMessage, "not marked Unhealthy")
	require.Empty(t, r.St.Leases)
}
