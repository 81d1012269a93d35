package controlplane_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Issue 14's reproduction on the lab: a one-rack site (three KCPs, no
// spare), rack1-mgmt2's node goes Unknown; a restart of rack1-mgmt1 is
// refused naming rack1-mgmt2, and an upgrade touches no KCP while the fault
// lasts: it pauses naming the server.
func TestE2EGateRefusesWhileAnotherKCPIsUnknown(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/one-rack.yaml", e2e.Options{})
	ctx := env.Context(5 * time.Minute)
	require.NoError(t, env.Lab.SetFault("rack1-mgmt2", faults.NodeUnknown, 0, false))
	acts := env.Kube()
	env.Eventually(time.Minute, "rack1-mgmt2 Unknown in the API", func() bool {
		o, err := acts.ObserveControlPlane(ctx, []string{"rack1-mgmt2"})
		return err == nil && len(o.Nodes) == 1 && o.Nodes[0].Ready == model.ReadyUnknown
	})
	require.Equal(t, model.ReadyTrue, env.BMM("rack1-mgmt2").ReadyState, "the ledger's memory still says Ready")

	err := env.StartAction(ctx, 1, api.ActionInput{BMM: "rack1-mgmt1", Action: api.ActionRestart}).Get(ctx, nil)
	require.Error(t, err, "the restart must be refused")
	for _, w := range []string{"restart of rack1-mgmt1 refused", "rack1-mgmt2", "Ready=Unknown", "seen at"} {
		require.Contains(t, err.Error(), w)
	}
	require.Empty(t, env.State().Leases, "no lease held")

	before := env.Lab.ReimageCounts()
	up, err := env.StartUpgrade(ctx, "4.2.0")
	require.NoError(t, err)
	var st api.UpgradeStatus
	env.Eventually(2*time.Minute, "the upgrade pauses naming rack1-mgmt2", func() bool {
		v, err := env.Client.QueryWorkflow(ctx, api.UpgradeID(env.Cluster), "", api.QueryStatus)
		if err != nil || v.Get(&st) != nil {
			return false
		}
		return st.DetailedStatus == model.ClusterUpdatePaused
	})
	require.Contains(t, st.DetailedStatusMessage, "live control-plane check")
	require.Contains(t, st.DetailedStatusMessage, "rack1-mgmt2")
	require.Equal(t, before, env.Lab.ReimageCounts(), "no server reimaged while paused")
	// The query shows the pause as the workflow decides it; the ledger's
	// write follows as an activity.
	env.Eventually(30*time.Second, "the ledger records the pause", func() bool {
		return env.State().Cluster.DetailedStatus == model.ClusterUpdatePaused
	})

	// Cancelled while paused: the upgrade ends touching nothing.
	require.NoError(t, env.Update(ctx, api.UpgradeID(env.Cluster), api.UpdateCancel, nil))
	require.NoError(t, up.Get(ctx, &st))
	require.Equal(t, before, env.Lab.ReimageCounts())
	// The gate's commands (observations, version markers, the pause) replay.
	env.RecordHistories(api.ActionID(env.Cluster, "rack1-mgmt1", 1), api.UpgradeID(env.Cluster))

	evs := env.Events()
	for _, e := range evs {
		if strings.HasPrefix(e.BMM, "rack1-mgmt") && (e.Kind == events.Reset || e.Kind == events.PowerOff || e.Kind == events.ReimageStart) {
			t.Errorf("a KCP was disrupted: %v", e)
		}
	}
}

// Issue 14 (c): on a four-rack site whose etcd is real (three members, the
// spare outside), a KCP dies and fails over. The promoted spare's member
// joins, the dead KCP's is removed: etcd ends with three members, the
// three active KCPs. Then an upgrade promotes the new spare — a management
// server until the failover — whose member joins in turn: the member set
// is again the active KCPs.
func TestE2EFailoverLeavesTheActiveKCPsAsMembers(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/four-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		e2e.FastRemediation(inv)
		inv.Lab = nil // etcd attached: the failover must keep quorum itself
		// The subject is the control plane: one compute a rack keeps every
		// phase of the upgrade that follows.
		e2e.KeepComputes(inv, 1, nil)
	}})
	env.StartMonitor()
	const kcp, spare = "rack1-mgmt1", "rack4-mgmt1"
	ctx, fs := killKCP(t, env, kcp, spare, 4*time.Minute, "failed over to the spare")
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
	t.Parallel()
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
