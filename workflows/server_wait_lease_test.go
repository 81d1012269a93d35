package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

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
