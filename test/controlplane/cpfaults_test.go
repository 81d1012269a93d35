package controlplane_test

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Issue 14 (c): on a four-rack site whose etcd is real (three members, the
// spare outside), a KCP dies and fails over. The promoted spare's member
// joins, the dead KCP's is removed: etcd ends with three members, the
// three active KCPs. Then an upgrade promotes the new spare — a management
// server until the failover — whose member joins in turn: the member set
// is again the active KCPs.
func TestE2EFailoverLeavesTheActiveKCPsAsMembers(t *testing.T) {
	env := e2e.Start(t, "../../examples/four-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		e2e.FastRemediation(inv)
		inv.Lab = nil // etcd attached: the failover must keep quorum itself
	}})
	env.StartMonitor()
	const kcp, spare = "rack1-mgmt1", "rack4-mgmt1"
	require.Equal(t, model.RoleKCP, env.BMM(kcp).Roles[0])
	require.Equal(t, model.RoleKCPSpare, env.BMM(spare).Roles[0])
	require.NoError(t, env.Lab.SetFault(kcp, faults.PowerOnFails, 0, false))
	require.NoError(t, env.Lab.SetFault(kcp, faults.NodeUnknown, 0, false))

	ctx := env.Context(4 * time.Minute)
	rs := env.Remediation(ctx, kcp)
	require.Contains(t, rs.Outcome, "failed over to the spare", rs.Outcome)
	var fs api.FailoverStatus
	require.NoError(t, env.Client.GetWorkflow(ctx, api.FailoverID(env.Cluster), "").Get(ctx, &fs))
	require.Empty(t, fs.Error)
	require.True(t, fs.Promoted)
	require.Equal(t, model.RoleKCP, env.BMM(spare).Roles[0])
	env.RequireMembersAreActiveKCPs(ctx)

	evs := env.Events()
	removed := false
	for _, e := range evs {
		if e.Kind == events.EtcdMemberRemove && e.BMM == kcp {
			removed = true
		}
		require.NotEqual(t, events.EtcdMemberStale, e.Kind, "a member was left behind: %v", e)
	}
	require.True(t, removed, "the dead KCP's member was removed")

	// The monitor would remediate the nodes the upgrade reboots (its
	// thresholds are seconds here): the upgrade runs without it.
	require.NoError(t, env.Client.TerminateWorkflow(ctx, api.MonitorID(env.Cluster), "", "the upgrade follows"))
	uctx := env.Context(8 * time.Minute)
	env.Upgrade(uctx, "4.2.0")
	require.Equal(t, model.RoleKCP, env.BMM(fs.NewSpare).Roles[0], "the new spare was promoted")
	require.Equal(t, 1, env.Lab.Events.Count(events.EtcdMemberPromote, fs.NewSpare), "the new spare's member joined as a voter")
	env.RequireMembersAreActiveKCPs(uctx)
}

// Issue 14 (d): a second KCP killed while an upgrade is in its control
// plane pauses the upgrade at the next KCP step, naming it, instead of it
// going on; once the KCP is back, continue-update finishes the upgrade.
func TestE2ESecondKCPDownPausesTheUpgrade(t *testing.T) {
	env := e2e.Start(t, "../../examples/one-rack.yaml", e2e.Options{})
	ctx := env.Context(8 * time.Minute)
	run, err := env.StartUpgrade(ctx, "4.2.0")
	require.NoError(t, err)
	var st api.UpgradeStatus
	query := func() bool {
		var ok bool
		st, ok = env.UpgradeStatus(ctx)
		return ok
	}
	env.Eventually(2*time.Minute, "the first KCP step runs", func() bool {
		return query() && len(st.ControlPlane.Servers) == 3 && st.ControlPlane.Servers[0].State == api.StateRunning
	})
	victim := st.Plan.ControlPlane[2].BMM
	require.NoError(t, env.Lab.SetFault(victim, faults.NodeUnknown, 0, false))
	env.Eventually(3*time.Minute, "the upgrade pauses naming "+victim, func() bool {
		return query() && st.DetailedStatus == model.ClusterUpdatePaused
	})
	require.Contains(t, st.DetailedStatusMessage, "live control-plane check")
	require.Contains(t, st.DetailedStatusMessage, victim)
	second := st.Plan.ControlPlane[1].BMM
	require.Zero(t, env.Lab.ReimageCounts()[second], "the next KCP was not touched while %s was down", victim)

	require.NoError(t, env.Lab.SetFault(victim, faults.NodeUnknown, 0, true))
	acts := env.Kube()
	env.Eventually(2*time.Minute, victim+" Ready again", func() bool {
		o, err := acts.ObserveControlPlane(ctx, []string{victim})
		return err == nil && len(o.Nodes) == 1 && o.Nodes[0].Ready == model.ReadyTrue
	})
	env.Continue(ctx)
	require.NoError(t, run.Get(ctx, &st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	env.RequireMembersAreActiveKCPs(ctx)
}
