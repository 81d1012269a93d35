package remediation

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// The provisioning trigger fires from the ledger's provisioning start,
// whatever the detailed status says: a BMM registered five hours before
// the monitor starts whose node never came (registration records it
// Provisioned), and a reimage that failed an hour before (Error, node
// NotReady), are remediated once six hours have passed since each start.
// A registered BMM whose node is Ready has its start cleared by the first
// round, so a later NotReady is a sick node, not a provisioning.
func TestMonitorProvisioningTriggerFromLedger(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(10 * time.Minute)})
	stamp := func(bmm string, ago time.Duration) time.Time {
		at := m.t0.Add(-ago)
		r.Bmm(bmm).ProvisioningSince = &at
		return at
	}
	registered := stamp("rack1-c1", 5*time.Hour)
	r.Nodes["rack1-c1"].Exists = false
	failed := stamp("rack2-c1", time.Hour)
	r.Bmm("rack2-c1").DetailedStatus = model.BMMError
	r.Nodes["rack2-c1"].Ready = model.ReadyFalse
	stamp("rack3-c1", 7*time.Hour) // its node is Ready: the provisioning is over
	var afterFirst *time.Time
	m.after(5*time.Minute, func() {
		r.Mu.Lock()
		defer r.Mu.Unlock()
		afterFirst = r.Bmm("rack3-c1").ProvisioningSince
		r.Nodes["rack3-c1"].Ready = model.ReadyFalse // sick later: no provisioning trigger
	})

	st := m.run(5*time.Hour + 15*time.Minute)
	require.Nil(t, afterFirst, "the first round cleared the start of a node seen Ready")
	require.Equal(t, []string{"rack1-c1", "rack2-c1"}, m.startedBMMs())
	require.Equal(t, []time.Duration{time.Hour, 5 * time.Hour}, m.at, "six hours after each start, at the first round past it")
	for i, since := range []time.Time{registered, failed} {
		require.Equal(t, remediate.ProvisioningTimeout, m.started[i].Trigger)
		require.True(t, since.Equal(m.started[i].Since), "counted from the ledger's start: %v", m.started[i].Since)
	}
	for _, c := range st.Clocks {
		require.NotEqual(t, "rack3-c1", c.BMM, "a node that was Ready and fell sick is not provisioning")
	}
	// The stand-in remediation healed both nodes: the monitor saw them
	// Ready and cleared their starts.
	require.Nil(t, r.Bmm("rack1-c1").ProvisioningSince)
	require.Nil(t, r.Bmm("rack2-c1").ProvisioningSince)
}

// The ledger starts the clock at each reimage, upgrade, action,
// remediation or failover alike, and ends it when the node is back: a
// reprovision that fails leaves it running, one that succeeds clears it.
func TestRemediationProvisioningClock(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Set("rack1-c1", func(n *wftest.FakeNode) { n.Rofs = true })
	r.Failing["rack1-c1"] = "the installer failed"
	r.Set("rack1-c2", func(n *wftest.FakeNode) { n.Rofs = true })
	wftest.RunRemediation(t, r, "rack1-c1", remediate.ReadOnlyRootFS, RemediationWorkflow, KCPFailoverWorkflow)
	wftest.RunRemediation(t, r, "rack1-c2", remediate.ReadOnlyRootFS, RemediationWorkflow, KCPFailoverWorkflow)
	require.NotNil(t, r.Bmm("rack1-c1").ProvisioningSince, "a failed reprovision is a provisioning whose node never came")
	require.Nil(t, r.Bmm("rack1-c2").ProvisioningSince, "the node came back: provisioning over")
}

// A BMM in Error whose provisioning start the ledger holds is still
// provisioning when the remediation re-checks: the ladder runs (before,
// only the Provisioning status counted and it was refused).
func TestRemediationProvisioningStillDue(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	since := time.Now().Add(-7 * time.Hour)
	b := r.Bmm("rack1-c1")
	b.DetailedStatus, b.ProvisioningSince = model.BMMError, &since
	r.Nodes["rack1-c1"].Exists = false
	st := wftest.RunRemediation(t, r, "rack1-c1", remediate.ProvisioningTimeout, RemediationWorkflow, KCPFailoverWorkflow)
	require.Empty(t, st.Refused)
	require.Equal(t, []string{"reprovision:ok"}, ranSteps(st.Steps))
	require.Nil(t, r.Bmm("rack1-c1").ProvisioningSince)
}
