package workflows

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
)

// A failover cut while the fallen spare is on its management ladder leaves
// the control plane whole and the spare unmarked, management, its
// provisioning clock running: a re-run of the failover has nothing left to
// do, and the health monitor's provisioning-timeout trigger takes the
// spare from the top of the ladder (docs/control-plane.md). Converged by
// the monitor, not by the failover.
func TestFailoverCutOnTheFallenLadderLeavesItToTheMonitor(t *testing.T) {
	r := newFakeSite(t, "../examples/four-rack.yaml")
	const spare, failed = "rack4-mgmt1", "rack2-mgmt1"
	r.bmm(spare).DetailedStatus = model.BMMAvailable
	r.failing[spare] = "the installer failed"
	r.delay["Restart"] = 15 * time.Minute // the fallen spare's ladder: its reboot
	env := r.newEnv()
	r.bmm(failed).DetailedStatusMessage = model.UnhealthyMessage
	var onLadder atomic.Bool
	env.SetOnActivityStartedListener(func(info *activity.Info, ctx context.Context, args converter.EncodedValues) {
		r.activityStarted(info, ctx, args)
		if info.ActivityType.Name == "Restart" { // only the fallen spare restarts here
			onLadder.Store(true)
		}
	})
	for m := 1; m <= 600; m++ { // each simulated minute: cut once the ladder runs
		env.RegisterDelayedCallback(func() {
			if onLadder.Load() {
				onLadder.Store(false)
				env.CancelWorkflow()
			}
		}, time.Duration(m)*time.Minute)
	}
	env.ExecuteWorkflow(KCPFailoverWorkflow, api.FailoverInput{Cluster: r.st.Cluster.Name, Failed: failed})
	var st api.FailoverStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.True(t, st.Promoted, st.Error)
	require.Contains(t, st.Error, "cancelled")
	require.Equal(t, []api.FallenOutcome{{BMM: spare, Outcome: "cancelled during reboot"}}, st.FallenOutcomes)

	b := r.bmm(spare)
	require.Equal(t, model.RoleManagement, r.role(spare))
	require.False(t, b.MarkedUnhealthy(), "one failed attempt is no mark")
	require.NotNil(t, b.ProvisioningSince, "its provisioning clock runs")
	kcps := 0
	for _, x := range r.st.Cluster.BMMs {
		if x.HasRole(model.RoleKCP) && !x.MarkedUnhealthy() {
			kcps++
		}
	}
	require.Equal(t, 3, kcps, "the control plane is whole")

	// The failover run again finds nothing to do for the failed server.
	again := r.newEnv()
	again.ExecuteWorkflow(KCPFailoverWorkflow, api.FailoverInput{Cluster: r.st.Cluster.Name, Failed: failed})
	var st2 api.FailoverStatus
	require.NoError(t, again.GetWorkflowResult(&st2))
	require.False(t, st2.Promoted, "no second promotion")

	// The monitor's view of the spare: its node never came back, so the
	// provisioning-timeout trigger is due once the timeout has passed.
	ns := make([]kube.NodeStatus, len(r.st.Cluster.BMMs))
	for i, x := range r.st.Cluster.BMMs {
		ns[i] = kube.NodeStatus{Node: x.NodeName, Exists: x.Name != spare, Ready: model.ReadyTrue}
	}
	cfg := r.st.Remediation
	now := b.ProvisioningSince.Add(time.Duration(cfg.ProvisioningTimeout))
	_, due := remediate.Observe(nil, observations(r.st.Cluster, ns), now, cfg)
	require.Contains(t, due, remediate.Due{BMM: spare, Role: model.RoleManagement, Trigger: remediate.ProvisioningTimeout,
		Since: *b.ProvisioningSince, Held: time.Duration(cfg.ProvisioningTimeout)})
}
