package workflows

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

// Issue 27: a remediation marks rack2-c3 Unhealthy while it holds the
// server's lease, and an upgrade step waits for that lease. Whether the
// mark lands before the step starts waiting or while it waits, the step's
// own status writes do not erase it, and once the lease is free the step
// reads the server again and leaves it alone: still marked, not cordoned,
// not reimaged.
func TestAMarkedServerIsNotUpgradedByAStepThatWaited(t *testing.T) {
	for _, when := range []string{"before", "while"} {
		t.Run("marked "+when+" the step waits", func(t *testing.T) {
			f, env := siteEnv(t, "../examples/four-rack.yaml")
			const busy = "rack2-c3"
			holder := api.RemediationID("site-a", busy)
			f.st.Leases = append(f.st.Leases, lease.Lease{BMM: busy, Holder: holder, Operation: lease.OpRemediation, Disruptive: true})
			start := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
			env.SetStartTime(start)
			// What the compute ladder's last rung does, through the ledger.
			remediationGivesUp := func(at time.Time) {
				f.recordPatch(api.BMMPatch{BMM: busy, DetailedStatus: api.Str(model.BMMError),
					MarkUnhealthy: &model.UnhealthyMark{Reason: "compute remediation gave up after reprovision", Since: at, By: holder}}, at)
				f.nodes[busy].exists = false
			}
			if when == "before" {
				remediationGivesUp(start)
			}
			sawWait, marked := false, when == "before"
			for m := 5; m < 6*60; m += 5 {
				env.RegisterDelayedCallback(func() {
					if !f.mu.TryLock() { // an activity mock may hold it: try at the next callback
						return
					}
					defer f.mu.Unlock()
					waiting := strings.Contains(f.bmm(busy).DetailedStatusMessage, "waits for")
					sawWait = sawWait || waiting
					switch {
					case !marked && waiting:
						remediationGivesUp(env.Now())
						marked = true
					case marked && len(f.st.Leases) > 0:
						f.st.Leases = lease.Release(f.st.Leases, busy, holder)
					}
				}, time.Duration(m)*time.Minute)
			}
			env.ExecuteWorkflow(ServerUpgradeWorkflow, api.ServerInput{Cluster: "site-a", BMM: busy, TargetVersion: "4.2.0", ImageURL: "http://images/4.2.0.iso"})
			require.NoError(t, env.GetWorkflowError())
			var res api.ServerResult
			require.NoError(t, env.GetWorkflowResult(&res))

			b := f.bmm(busy)
			require.True(t, marked)
			require.Equal(t, when == "while", sawWait, "the step said what it waited for only before the mark")
			require.False(t, res.Succeeded)
			require.Contains(t, res.Error, "out of service")
			require.True(t, b.MarkedUnhealthy(), "the mark survived the step's writes")
			require.NotNil(t, b.Unhealthy)
			require.Equal(t, holder, b.Unhealthy.By)
			require.Equal(t, model.UnhealthyMessage, b.DetailedStatusMessage)
			require.Equal(t, "4.1.2", b.RuntimeVersion)
			require.False(t, slices.Contains(f.reimages, busy), "never reimaged")
			require.False(t, f.cordoned[b.NodeName], "never cordoned")
			require.Empty(t, f.st.Leases, "no lease left")
		})
	}
}

// Only a clear lifts the mark: status writes of every kind leave it, and
// the ledger of an older history keeps the message as the mark.
func TestTheLedgerKeepsTheMark(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	m := &model.UnhealthyMark{Reason: "gave up", Since: now, By: "remediate:site-a:x"}
	b := model.BMM{Name: "x", DetailedStatus: model.BMMProvisioned}
	api.ApplyPatch(&b, api.BMMPatch{DetailedStatus: api.Str(model.BMMError), MarkUnhealthy: m}, now)
	for _, p := range []api.BMMPatch{
		{DetailedStatusMessage: api.Str("Upgrade to 4.2.0 waits for remediate:site-a:x (remediation)")},
		{DetailedStatus: api.Str(model.BMMProvisioned), DetailedStatusMessage: api.Str("")},
		{MarkUnhealthy: &model.UnhealthyMark{Reason: "later", By: "failover:site-a"}},
	} {
		api.ApplyPatch(&b, p, now.Add(time.Hour))
		require.True(t, b.MarkedUnhealthy())
		require.Equal(t, *m, *b.Unhealthy, "the first mark stays")
		require.Equal(t, model.UnhealthyMessage, b.DetailedStatusMessage)
	}
	api.ApplyPatch(&b, api.BMMPatch{ClearUnhealthy: true, DetailedStatusMessage: api.Str("")}, now)
	require.False(t, b.MarkedUnhealthy())
	require.Nil(t, b.Unhealthy)

	// Before unhealthy-mark-state: the message was the mark.
	old := model.BMM{Name: "x", DetailedStatusMessage: model.UnhealthyMessage}
	api.ApplyPatchAs(&old, api.BMMPatch{DetailedStatusMessage: api.Str("something else")}, now, false)
	require.False(t, old.MarkedUnhealthy())
	api.ApplyPatchAs(&old, api.BMMPatch{MarkUnhealthy: m}, now, false)
	require.True(t, old.MarkedUnhealthy())
	require.Equal(t, model.UnhealthyMessage, old.DetailedStatusMessage)

	// A message-mark of an old ledger becomes a mark on the next write.
	conv := model.BMM{Name: "x", DetailedStatusMessage: model.UnhealthyMessage}
	api.ApplyPatch(&conv, api.BMMPatch{DetailedStatusMessage: api.Str("")}, now)
	require.NotNil(t, conv.Unhealthy)
	require.Equal(t, model.LegacyMarkBy, conv.Unhealthy.By)
	require.True(t, conv.MarkedUnhealthy())
}

// A ledger carried over from a run before the change (its mark only the
// message) converts it into a mark when it starts; from then on a status
// write leaves it, and the record names the mark's origin.
func TestTheLedgerConvertsMessageMarks(t *testing.T) {
	env := newEnv()
	in := fourRackInput(t)
	carry := api.ClusterState{Cluster: model.Cluster{Name: "site-a", DetailedStatus: model.ClusterRunning, RuntimeVersion: "4.1.2"}}
	for _, a := range in.Placement {
		b := model.BMM{Name: a.Name, Roles: []model.Role{a.Role}, ManagementGroup: a.ManagementGroup, DetailedStatus: model.BMMProvisioned,
			ReadyState: model.ReadyTrue, RuntimeVersion: "4.1.2"}
		if a.Name == "rack2-c3" {
			b.DetailedStatus, b.DetailedStatusMessage = model.BMMError, model.UnhealthyMessage
		}
		carry.Cluster.BMMs = append(carry.Cluster.BMMs, b)
	}
	in.Carry = &carry
	var converted, after api.ClusterState
	var write updateResult
	env.RegisterDelayedCallback(func() {
		converted = queryState(t, env)
		sendUpdate(env, api.UpdateRecordBMM, "u1", &write, api.BMMPatch{BMM: "rack2-c3", DetailedStatusMessage: api.Str("Upgrade to 4.2.0 waits for remediate:site-a:rack2-c3 (remediation)")})
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		after = queryState(t, env)
		env.CancelWorkflow()
	}, 2*time.Second)
	env.ExecuteWorkflow(ClusterWorkflow, in)
	require.NoError(t, write.err)
	for _, st := range []api.ClusterState{converted, after} {
		b, _ := st.Cluster.BMM("rack2-c3")
		require.NotNil(t, b.Unhealthy)
		require.Equal(t, model.LegacyMarkBy, b.Unhealthy.By)
		require.Equal(t, model.UnhealthyMessage, b.DetailedStatusMessage)
	}
}

// An upgrade step that finds its server leased by a remediation waits for
// it (the server's message says so) and upgrades it once the lease is
// gone, instead of failing it at once.
func TestUpgradeStepWaitsForARemediation(t *testing.T) {
	f, env := siteEnv(t, "../examples/four-rack.yaml")
	const busy = "rack2-c3"
	holder := api.RemediationID("site-a", busy)
	f.st.Leases = append(f.st.Leases, lease.Lease{BMM: busy, Holder: holder, Operation: lease.OpRemediation, Disruptive: true})
	var message string
	for m := 5; m < 24*60; m += 5 {
		env.RegisterDelayedCallback(func() {
			// TryLock: an activity mock holding mu may be waiting on the
			// test environment this callback runs in; try at the next callback.
			if !f.mu.TryLock() {
				return
			}
			defer f.mu.Unlock()
			if msg := f.bmm(busy).DetailedStatusMessage; message == "" && strings.Contains(msg, "waits for") {
				message = msg
				f.st.Leases = lease.Release(f.st.Leases, busy, holder)
			}
		}, time.Duration(m)*time.Minute)
	}
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, upgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	require.Equal(t, "Upgrade to 4.2.0 waits for "+holder+" (remediation) to release this server", message)
	require.Equal(t, "4.2.0", f.versions()[busy])
	require.Equal(t, 8, st.Racks[1].Succeeded, "rack2 counts the server that waited")
}

func TestRemediationHolder(t *testing.T) {
	ls := []lease.Lease{{BMM: "a", Holder: "action:x", Operation: lease.OpRestart}, {BMM: "b", Holder: "failover:c", Operation: lease.OpFailover}}
	require.Empty(t, remediationHolder(ls, "a"), "an operator's action is not waited for")
	require.Equal(t, "failover:c (failover)", remediationHolder(ls, "b"))
	require.Empty(t, remediationHolder(ls, "c"))
}
