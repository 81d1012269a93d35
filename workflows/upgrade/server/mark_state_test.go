package server

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
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
			f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
			const busy = "rack2-c3"
			holder := api.RemediationID("site-a", busy)
			f.St.Leases = append(f.St.Leases, lease.Lease{BMM: busy, Holder: holder, Operation: lease.OpRemediation, Disruptive: true})
			start := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
			env.SetStartTime(start)
			// What the compute ladder's last rung does, through the ledger.
			remediationGivesUp := func(at time.Time) {
				f.RecordPatch(api.BMMPatch{BMM: busy, DetailedStatus: api.Str(model.BMMError),
					MarkUnhealthy: &model.UnhealthyMark{Reason: "compute remediation gave up after reprovision", Since: at, By: holder}}, at)
				f.Nodes[busy].Exists = false
			}
			if when == "before" {
				remediationGivesUp(start)
			}
			sawWait, marked := false, when == "before"
			for m := 5; m < 6*60; m += 5 {
				env.RegisterDelayedCallback(func() {
					if !f.Mu.TryLock() { // an activity mock may hold it: try at the next callback
						return
					}
					defer f.Mu.Unlock()
					waiting := strings.Contains(f.Bmm(busy).DetailedStatusMessage, "waits for")
					sawWait = sawWait || waiting
					switch {
					case !marked && waiting:
						remediationGivesUp(env.Now())
						marked = true
					case marked && len(f.St.Leases) > 0:
						f.St.Leases = lease.Release(f.St.Leases, busy, holder)
					}
				}, time.Duration(m)*time.Minute)
			}
			env.ExecuteWorkflow(ServerUpgradeWorkflow, api.ServerInput{Cluster: "site-a", BMM: busy, TargetVersion: "4.2.0", ImageURL: "http://images/4.2.0.iso"})
			require.NoError(t, env.GetWorkflowError())
			var res api.ServerResult
			require.NoError(t, env.GetWorkflowResult(&res))

			b := f.Bmm(busy)
			require.True(t, marked)
			require.Equal(t, when == "while", sawWait, "the step said what it waited for only before the mark")
			require.False(t, res.Succeeded)
			require.Contains(t, res.Error, "out of service")
			require.True(t, b.MarkedUnhealthy(), "the mark survived the step's writes")
			require.NotNil(t, b.Unhealthy)
			require.Equal(t, holder, b.Unhealthy.By)
			require.Equal(t, model.UnhealthyMessage, b.DetailedStatusMessage)
			require.Equal(t, "4.1.2", b.RuntimeVersion)
			require.False(t, slices.Contains(f.Reimages, busy), "never reimaged")
			require.False(t, f.Cordoned[b.NodeName], "never cordoned")
			require.Empty(t, f.St.Leases, "no lease left")
		})
	}
}

func TestRemediationHolder(t *testing.T) {
	ls := []lease.Lease{{BMM: "a", Holder: "action:x", Operation: lease.OpRestart}, {BMM: "b", Holder: "failover:c", Operation: lease.OpFailover}}
	require.Empty(t, remediationHolder(ls, "a"), "an operator's action is not waited for")
	require.Equal(t, "failover:c (failover)", remediationHolder(ls, "b"))
	require.Empty(t, remediationHolder(ls, "c"))
}
