package workflows_test

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/worker/wiring"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// The worker as a site runs it: no shortened BMC power-on wait, so only
// the site's limits bound a step (the other e2e tests shorten it).
var siteWorker = &wiring.Options{PollInterval: 200 * time.Millisecond}

// Issue 21: on a three-rack site with second-scale remediation clocks, a
// KCP whose node goes Unknown and whose BMC never powers it on is failed
// over within 2 minutes of the fault: the reboot ends at rebootTimeout, not
// after five attempts of the BMC activity's own timeout.
func TestE2EKCPThatDoesNotPowerOnIsFailedOverInTime(t *testing.T) {
	env := e2e.Start(t, "../examples/four-rack.yaml", e2e.Options{Worker: siteWorker, Mutate: func(inv *model.Inventory) {
		inv.Racks = inv.Racks[:3]
		fastRemediation(inv)
		inv.Remediation.RebootTimeout = model.Duration(20 * time.Second)
		inv.Lab = nil // etcd attached: three members, the failover keeps quorum
	}})
	startMonitor(t, env)
	var kcp, spare string
	for _, b := range env.State().Cluster.BMMs {
		switch {
		case b.Roles[0] == model.RoleKCPSpare:
			spare = b.Name
		case b.Roles[0] == model.RoleKCP && b.Rack == "rack2":
			kcp = b.Name
		}
	}
	require.NotEmpty(t, kcp)
	require.NotEmpty(t, spare)
	faulted := time.Now()
	require.NoError(t, env.Lab.SetFault(kcp, faults.PowerOnFails, 0, false))
	require.NoError(t, env.Lab.SetFault(kcp, faults.NodeUnknown, 0, false))

	ctx := env.Context(2 * time.Minute)
	rs := remediationOf(ctx, t, env, kcp)
	require.Contains(t, rs.Outcome, "failed over to the spare", rs.Outcome)
	require.Contains(t, rs.Steps[0].Detail, "restart of "+kcp+" did not bring its node back within 20s (remediation.rebootTimeout)")
	var fs api.FailoverStatus
	require.NoError(t, env.Client.GetWorkflow(ctx, api.FailoverID(env.Cluster), "").Get(ctx, &fs))
	require.Empty(t, fs.Error)
	require.True(t, fs.Promoted)
	require.Less(t, time.Since(faulted), 2*time.Minute, "failed over within 2 minutes of the fault")
	require.Equal(t, model.RoleKCP, bmmOf(t, env, spare).Roles[0], "the spare is active")
	require.Equal(t, model.RoleKCPSpare, bmmOf(t, env, fs.NewSpare).Roles[0], "a management server is the new spare")
	require.Equal(t, model.RoleManagement, bmmOf(t, env, kcp).Roles[0], "the failed KCP is relabelled management")
}

// Issue 21: with timeouts {reimage: 90s}, a compute whose install fails
// (the BMC answers, no OS ever comes back) fails within the site's limit,
// the upgrade ends by its threshold naming it, and starting the same
// target once the fault is cleared finishes it.
func TestE2EFailedInstallEndsAtTheSiteLimit(t *testing.T) {
	const bad = "rack2-c3"
	env := e2e.Start(t, "../examples/two-rack.yaml", e2e.Options{Worker: siteWorker, Mutate: func(inv *model.Inventory) {
		inv.Timeouts = &model.TimeoutsSpec{Reimage: durationOf(90 * time.Second)}
		inv.Lab = []byte(`{"faults": [{"bmm": "` + bad + `", "kind": "reimage-fails"}]}`)
	}})
	require.Equal(t, 90*time.Second, env.State().Limits().Reimage.Std(), "the ledger holds the site's limit")
	ctx := env.Context(10 * time.Minute)
	lenient := model.UpdateStrategy{StrategyType: model.StrategyRack, ThresholdType: model.ThresholdPercentSuccess, ThresholdValue: 0, WaitTimeMinutes: new(int)}
	start := func() api.UpgradeStatus {
		run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.UpgradeID(env.Cluster), TaskQueue: api.TaskQueue},
			api.RuntimeUpgradeWorkflowName, api.UpgradeInput{Cluster: env.Cluster, TargetVersion: "4.2.0", UpdateStrategy: lenient})
		require.NoError(t, err)
		var st api.UpgradeStatus
		require.NoError(t, run.Get(ctx, &st))
		return st
	}
	began := time.Now()
	st := start()
	require.Less(t, time.Since(began), 10*time.Minute)
	failed := failedServers(st)
	require.Len(t, failed, 1, "%+v", st.Racks)
	require.Equal(t, bad, failed[0].Name)
	require.Contains(t, failed[0].Error, "did not come back on 4.2.0 within 1m30s (timeouts.reimage)")
	require.NotEqual(t, "4.2.0", bmmOf(t, env, bad).RuntimeVersion)

	require.NoError(t, env.Lab.SetFault(bad, faults.ReimageFails, 0, true))
	st = start()
	require.Empty(t, failedServers(st), "%+v", st.Racks)
	require.Equal(t, "4.2.0", bmmOf(t, env, bad).RuntimeVersion, "the re-run finished the server")
}

func durationOf(d time.Duration) *model.Duration { v := model.Duration(d); return &v }

// failedServers are the servers the upgrade reports failed, in every unit.
func failedServers(st api.UpgradeStatus) []struct{ Name, Error string } {
	var out []struct{ Name, Error string }
	units := append(append([]api.UnitStatus{st.ControlPlane}, st.ManagementGroups...), st.Racks...)
	for _, u := range units {
		for _, s := range u.Servers {
			if s.State == api.StateFailed {
				out = append(out, struct{ Name, Error string }{s.Name, s.Error})
			}
		}
	}
	return out
}
