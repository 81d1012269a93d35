package upgrade

import (
	"slices"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/rackroll/rackroll/workflows/upgrade/server"
	"github.com/stretchr/testify/require"
)

// cancel-update takes effect within seconds: the rack in flight marks its
// servers not yet started Cancelled and reports them at once, while the
// servers in flight finish.
func TestCancelUpdateShowsWithinSeconds(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	f.Delay["Reimage"] = 20 * time.Minute
	var cancel wftest.UpdateResult
	var after api.UpgradeStatus
	sent := false
	query := func() api.UpgradeStatus {
		var st api.UpgradeStatus
		wftest.Query(t, env, &st)
		return st
	}
	for m := 5; m < 24*60; m += 5 {
		env.RegisterDelayedCallback(func() {
			if sent {
				return
			}
			st := query()
			if st.Phase != api.PhaseCompute || len(st.Racks[0].Running()) == 0 {
				return
			}
			sent = true
			wftest.SendUpdate(env, api.UpdateCancel, "c1", &cancel, nil)
			env.RegisterDelayedCallback(func() { after = query() }, 10*time.Second)
		}, time.Duration(m)*time.Minute)
	}
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{MaxUnavailable: 2, WaitTimeMinutes: wftest.Intp(0)}))
	require.NoError(t, env.GetWorkflowError())
	require.True(t, sent, "the compute phase was reached")
	require.NoError(t, cancel.Rejected)

	rack := after.Racks[0]
	require.Len(t, rack.Running(), 2, "the two servers in flight keep going")
	cancelled := 0
	for _, s := range rack.Servers {
		if s.State == api.StateCancelled {
			cancelled++
		}
	}
	require.Equal(t, len(rack.Servers)-2, cancelled, "the rest are Cancelled 10 s after the cancel: %v", rack.Servers)

	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, api.StateCancelled, st.DetailedStatus)
	require.Equal(t, 2, st.Racks[0].Succeeded, "the servers in flight finished")
	for _, r := range st.Racks[1:] {
		require.Equal(t, api.StateCancelled, r.State, "%s never started: shown Cancelled, not Pending", r.Name)
		for _, s := range r.Servers {
			require.Equal(t, api.StateCancelled, s.State, "%s", s.Name)
		}
	}
}

// A server upgrade cancelled after its reimage and uncordon (here as its
// VMs restart) still records the new version: the upgrade counts it
// upgraded, so a ledger left on the old version would never be finished
// by a re-run (TestPropertyConvergeAfterInterruptions seed 20261398).
func TestServerUpgradeCancelledAfterReimageRecordsVersion(t *testing.T) {
	f := wftest.NewFakeSite(t, wftest.Example("two-rack.yaml"))
	const bmm = "rack1-c1"
	env := f.NewEnv()
	cancel := false
	f.OnStep = func(activity, _ string) error {
		cancel = cancel || activity == "StartVMs"
		return nil
	}
	f.AfterAnswer = func() {
		f.Mu.Lock()
		now := cancel
		cancel = false
		f.Mu.Unlock()
		if now {
			env.CancelWorkflow()
		}
	}
	env.ExecuteWorkflow(server.ServerUpgradeWorkflow, api.ServerInput{Cluster: "site-a", BMM: bmm, TargetVersion: "4.2.0", ImageURL: "http://images/rackroll-4.2.0.iso"})
	require.True(t, env.IsWorkflowCompleted())
	require.Contains(t, f.CallLog(), "StartVMs "+bmm, "the cancel came as the VMs restarted")
	b := f.LedgerBMM(bmm)
	require.Equal(t, "4.2.0", b.RuntimeVersion, "the reimage happened: the ledger says so")
	require.Equal(t, model.BMMProvisioned, b.DetailedStatus)
	require.Empty(t, f.Leases(), "the lease is released")
}

// A cancel that reaches a rack while a capacity check runs starts no server
// After it: during the first wave's check nothing is drained, during a
// later server's check only the first wave ran.
func TestRackCancelledDuringACapacityCheckStartsNoServer(t *testing.T) {
	servers := []string{"rack2-c1", "rack2-c2", "rack2-c3"}
	for _, c := range []struct {
		name     string
		check    int // the check during which the cancel comes
		reimaged []string
	}{
		{"first wave", 1, nil},
		{"later server", 2, []string{"rack2-c1", "rack2-c2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := wftest.NewFakeSite(t, wftest.Example("two-rack.yaml"))
			env := f.NewEnv()
			sent := false
			f.AfterAnswer = func() {
				f.Mu.Lock()
				now := !sent && len(f.CapacityChecks) == c.check
				sent = sent || now
				f.Mu.Unlock()
				if now {
					env.SignalWorkflow(api.SignalCancel, nil)
				}
			}
			env.ExecuteWorkflow(RackUpgradeWorkflow, api.RackInput{Cluster: "site-a",
				Rack:   upgradeplan.Rack{Name: "rack2", Servers: servers, Required: 3, Parallel: 2},
				Server: api.ServerInput{Cluster: "site-a", TargetVersion: "4.2.0", ImageURL: "http://images/rackroll-4.2.0.iso"},
				Capacity: &api.CapacityAsk{Nodes: []string{f.Bmm("rack2-c1").NodeName, f.Bmm("rack2-c2").NodeName},
					Later: map[string]string{"rack2-c3": f.Bmm("rack2-c3").NodeName}}})
			require.NoError(t, env.GetWorkflowError())
			require.True(t, sent, "the cancel came during the capacity check")
			var res api.RackResult
			require.NoError(t, env.GetWorkflowResult(&res))
			require.ElementsMatch(t, c.reimaged, reimagesIn(f, "rack2"))
			require.Len(t, res.Servers, len(servers))
			for _, s := range res.Servers {
				want := api.StateCancelled
				if slices.Contains(c.reimaged, s.Name) {
					want = api.StateSucceeded
				}
				require.Equal(t, want, s.State, "%s", s.Name)
			}
			require.NotNil(t, res.Capacity, "the first wave's verdict is still returned")
		})
	}
}
