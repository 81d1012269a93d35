package upgrade

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// An upgrade step that finds its server leased by a remediation waits for
// it (the server's message says so) and upgrades it once the lease is
// gone, instead of failing it at once.
func TestUpgradeStepWaitsForARemediation(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	const busy = "rack2-c3"
	holder := api.RemediationID("site-a", busy)
	f.St.Leases = append(f.St.Leases, lease.Lease{BMM: busy, Holder: holder, Operation: lease.OpRemediation, Disruptive: true})
	var message string
	for m := 5; m < 24*60; m += 5 {
		env.RegisterDelayedCallback(func() {
			// TryLock: an activity mock holding mu may be waiting on the
			// test environment this callback runs in; try at the next callback.
			if !f.Mu.TryLock() {
				return
			}
			defer f.Mu.Unlock()
			if msg := f.Bmm(busy).DetailedStatusMessage; message == "" && strings.Contains(msg, "waits for") {
				message = msg
				f.St.Leases = lease.Release(f.St.Leases, busy, holder)
			}
		}, time.Duration(m)*time.Minute)
	}
	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	require.Equal(t, "Upgrade to 4.2.0 waits for "+holder+" (remediation) to release this server", message)
	require.Equal(t, "4.2.0", f.Versions()[busy])
	require.Equal(t, 8, st.Racks[1].Succeeded, "rack2 counts the server that waited")
}
