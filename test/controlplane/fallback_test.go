package controlplane_test

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Issue 27 on the lab's two-rack site: the spare is retired as an upgrade
// leaves it (powered off, Available, no node: idle, so a failover must
// provision it); then the KCP's node goes Unknown, its BMC never powers it
// on, and the spare cannot be reimaged. The failover does not settle for no control plane: a
// management server in the other rack becomes the KCP, a third the spare;
// the spare and the failed KCP each go down the management ladder and end
// marked Unhealthy. `cluster show` says one active KCP and names both.
func TestE2EFailoverFallsBackToAManagementServer(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: e2e.FastRemediation})
	const kcp, spare = "rack1-mgmt1", "rack2-mgmt1"
	retireSpare(t, env, spare)
	require.NoError(t, env.Lab.SetFault(spare, faults.ReimageFails, 0, false))
	env.KillServer(kcp)
	env.StartMonitor()

	_, fs := env.FailedOver(env.Context(5*time.Minute), kcp)
	standIn := fs.Plan.Spare
	require.NotEqual(t, spare, standIn)
	sb := env.BMM(standIn)
	require.Equal(t, model.RoleKCP, sb.Roles[0], "a management server is the KCP")
	require.NotEqual(t, env.BMM(kcp).Rack, sb.Rack, "in the other rack")
	require.Equal(t, model.RoleKCPSpare, env.BMM(fs.NewSpare).Roles[0])
	for _, b := range []string{kcp, spare} {
		m := env.BMM(b)
		require.Equal(t, model.RoleManagement, m.Roles[0], b)
		require.True(t, m.MarkedUnhealthy(), b)
		require.NotNil(t, m.Unhealthy, b)
		require.Equal(t, model.UnhealthyMessage, m.DetailedStatusMessage, b)
	}
	require.Len(t, fs.FallenOutcomes, 1)
	require.Equal(t, spare, fs.FallenOutcomes[0].BMM)

	st := env.State()
	require.Empty(t, st.Leases)
	require.Equal(t, "control plane: 1 active KCP of 1 ("+standIn+"); spare "+fs.NewSpare, st.ControlPlaneLine())
	line := st.UnhealthyLine()
	require.Contains(t, line, kcp+" (since ")
	require.Contains(t, line, spare+" (since ")
	// The fallback's commands (the stand-in, the fallen spare's ladder) replay.
	env.RecordHistoriesAs("fallback", api.FailoverID(env.Cluster))
}

// retireSpare leaves spare as an upgrade's retire does, without the
// upgrade: powered off (the power-off action), its node gone, recorded
// Available (the ledger's record-bmm, as workflows/upgrade/retire.go records it).
func retireSpare(t *testing.T, env *e2e.Env, spare string) {
	ctx := env.Context(2 * time.Minute)
	require.NoError(t, env.StartAction(ctx, 1, api.ActionInput{BMM: spare, Action: api.ActionPowerOff}).Get(ctx, nil))
	require.NoError(t, env.Kube().DeleteNode(ctx, env.BMM(spare).NodeName))
	require.NoError(t, env.Update(ctx, api.ClusterID(env.Cluster), api.UpdateRecordBMM, nil,
		api.BMMPatch{BMM: spare, DetailedStatus: api.Str(model.BMMAvailable), DetailedStatusMessage: api.Str("retired: powered off, waiting as the spare")}))
	require.Equal(t, model.BMMAvailable, env.BMM(spare).DetailedStatus)
}

// Issue 27 on a one-rack site with a fourth management server: the table
// keeps no spare, but the failover does not settle for two KCPs while a
// healthy server can stand in. The KCP's node goes Unknown and its BMC
// never powers it on: rack1-mgmt4 becomes the KCP, nobody the spare, and
// `cluster show` says three active KCPs of three.
func TestE2EOneRackFailoverPromotesAManagementServer(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/one-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		e2e.FastRemediation(inv)
		r := &inv.Racks[0]
		m4 := r.Servers[2]
		m4.Name, m4.BMC.Address, m4.BootMACAddress, m4.SerialNumber = "rack1-mgmt4", "https://10.0.1.14", "52:54:00:01:00:04", "SN-R1M04"
		r.Servers = append(r.Servers[:3], append([]model.ServerSpec{m4}, r.Servers[3:]...)...)
	}})
	const kcp, standIn = "rack1-mgmt2", "rack1-mgmt4"
	require.Equal(t, model.RoleKCP, env.BMM(kcp).Roles[0])
	require.Equal(t, model.RoleManagement, env.BMM(standIn).Roles[0])
	env.KillServer(kcp)
	env.StartMonitor()

	rs, fs := env.FailedOver(env.Context(4*time.Minute), kcp)
	require.Contains(t, rs.Outcome, "failed over to rack1-mgmt4, a management server standing in")
	require.Equal(t, standIn, fs.Plan.Spare, "the management server stands in")
	require.Empty(t, fs.NewSpare, "a one-rack site keeps no spare")
	require.Equal(t, model.RoleKCP, env.BMM(standIn).Roles[0])
	require.Equal(t, model.RoleManagement, env.BMM(kcp).Roles[0])

	st := env.State()
	require.Empty(t, st.Leases)
	require.Equal(t, "control plane: 3 active KCP of 3 (rack1-mgmt1, rack1-mgmt3, rack1-mgmt4); no spare", st.ControlPlaneLine())
	site, err := invariants.SiteFromInventory(env.Inventory)
	require.NoError(t, err)
	require.Empty(t, invariants.Check(env.Lab.Events.Events(), site), "starter lab check finds nothing wrong")
	env.RecordHistoriesAs("onerack", api.FailoverID(env.Cluster))
}
