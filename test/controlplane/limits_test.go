package controlplane_test

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Issue 21: on a three-rack site with second-scale remediation clocks, a
// KCP whose node goes Unknown and whose BMC never powers it on is failed
// over in time: the reboot ends at rebootTimeout, not after five attempts
// of the BMC activity's own timeout. The bound is read from the
// remediation's own step times (workflow time), so a machine busy with
// other tests does not decide it; the test runs beside them.
func TestE2EKCPThatDoesNotPowerOnIsFailedOverInTime(t *testing.T) {
	t.Parallel()
	const rebootTimeout = 20 * time.Second
	env := e2e.Start(t, "../../examples/four-rack.yaml", e2e.Options{Worker: e2e.SiteWorker, Mutate: func(inv *model.Inventory) {
		inv.Racks = inv.Racks[:3]
		e2e.KeepComputes(inv, 1, nil) // the subject is a KCP
		e2e.FastRemediation(inv)
		inv.Remediation.RebootTimeout = model.Duration(rebootTimeout)
		inv.Lab = nil // etcd attached: three members, the failover keeps quorum
	}})
	env.StartMonitor()
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
	require.NoError(t, env.Lab.SetFault(kcp, faults.PowerOnFails, 0, false))
	require.NoError(t, env.Lab.SetFault(kcp, faults.NodeUnknown, 0, false))

	ctx := env.Context(5 * time.Minute)
	rs := env.Remediation(ctx, kcp)
	require.Contains(t, rs.Outcome, "failed over to the spare", rs.Outcome)
	require.Contains(t, rs.Steps[0].Detail, "restart of "+kcp+" did not bring its node back within 20s (remediation.rebootTimeout)")
	var fs api.FailoverStatus
	require.NoError(t, env.Client.GetWorkflow(ctx, api.FailoverID(env.Cluster), "").Get(ctx, &fs))
	require.Empty(t, fs.Error)
	require.True(t, fs.Promoted)
	reboot := rs.Steps[0]
	require.NotNil(t, reboot.FinishedAt)
	require.Less(t, reboot.FinishedAt.Sub(reboot.StartedAt), rebootTimeout+10*time.Second,
		"the reboot step ends at rebootTimeout (%v), not after the BMC activity's retries", rebootTimeout)
	require.Equal(t, model.RoleKCP, env.BMM(spare).Roles[0], "the spare is active")
	require.Equal(t, model.RoleKCPSpare, env.BMM(fs.NewSpare).Roles[0], "a management server is the new spare")
	require.Equal(t, model.RoleManagement, env.BMM(kcp).Roles[0], "the failed KCP is relabelled management")
}
