package remediation

import (
	"errors"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// monRun drives HealthMonitorWorkflow on a FakeSite with a stand-in
// RemediationWorkflow that records its start, holds for hold and heals.
type monRun struct {
	t       *testing.T
	r       *wftest.FakeSite
	env     *testsuite.TestWorkflowEnvironment
	started []api.RemediationInput
	at      []time.Duration // when each started, from the monitor's start
	hold    time.Duration
	t0      time.Time
}

func newMonRun(t *testing.T, r *wftest.FakeSite, cfg model.RemediationSpec) *monRun {
	m := &monRun{t: t, r: r, env: r.NewEnv(), hold: time.Second}
	r.St.Remediation = cfg.WithDefaults()
	m.t0 = m.env.Now()
	m.env.RegisterWorkflowWithOptions(func(ctx workflow.Context, in api.RemediationInput) (api.RemediationStatus, error) {
		m.started = append(m.started, in)
		m.at = append(m.at, workflow.Now(ctx).Sub(m.t0))
		if err := workflow.Sleep(ctx, m.hold); err != nil {
			return api.RemediationStatus{}, err
		}
		// It heals the node, as a remediation that recovered it would.
		r.Set(in.BMM, func(n *wftest.FakeNode) { n.Rofs, n.Ready, n.Exists = false, model.ReadyTrue, true })
		return api.RemediationStatus{Outcome: "stand-in done", Finished: true}, nil
	}, workflow.RegisterOptions{Name: api.RemediationWorkflowName})
	return m
}

// at runs fn at d after the monitor starts (virtual time).
func (m *monRun) after(d time.Duration, fn func()) { m.env.RegisterDelayedCallback(fn, d) }

func (m *monRun) status() api.MonitorStatus {
	v, err := m.env.QueryWorkflow(api.QueryStatus)
	require.NoError(m.t, err)
	var st api.MonitorStatus
	require.NoError(m.t, v.Get(&st))
	return st
}

// run runs the monitor until stop, returning the status just before.
func (m *monRun) run(stop time.Duration) api.MonitorStatus {
	var st api.MonitorStatus
	m.after(stop, func() { st = m.status(); m.env.CancelWorkflow() })
	m.env.ExecuteWorkflow(HealthMonitorWorkflow, api.MonitorInput{Cluster: m.r.St.Cluster.Name, RoundsPerRun: 100000})
	require.True(m.t, m.env.IsWorkflowCompleted())
	return st
}

func (m *monRun) startedBMMs() []string {
	var out []string
	for _, s := range m.started {
		out = append(out, s.BMM)
	}
	return out
}

func dur(d time.Duration) model.Duration { return model.Duration(d) }

// Each trigger through the monitor, one second below its threshold and at
// it: the round interval is chosen so the second round sees exactly that.
func TestMonitorTriggerThresholds(t *testing.T) {
	cfg := model.RemediationSpec{ReadOnlyRootFilesystemFor: dur(10 * time.Minute), NodeUnknownFor: dur(30 * time.Minute),
		ProvisioningTimeout: dur(6 * time.Hour)}
	for _, tc := range []struct {
		name      string
		bmm       string
		trig      remediate.Trigger
		threshold time.Duration
		set       func(r *wftest.FakeSite, bmm string)
	}{
		{"read-only root fs, compute", "rack1-c1", remediate.ReadOnlyRootFS, 10 * time.Minute,
			func(r *wftest.FakeSite, b string) { r.Nodes[b].Rofs = true }},
		{"node Unknown, management", "rack1-mgmt2", remediate.NodeUnknown, 30 * time.Minute,
			func(r *wftest.FakeSite, b string) { r.Nodes[b].Ready = model.ReadyUnknown }},
		{"node Unknown, KCP", "rack2-mgmt1", remediate.NodeUnknown, 30 * time.Minute,
			func(r *wftest.FakeSite, b string) { r.Nodes[b].Ready = model.ReadyUnknown }},
		{"provisioning, compute", "rack3-c2", remediate.ProvisioningTimeout, 6 * time.Hour,
			func(r *wftest.FakeSite, b string) {
				r.Bmm(b).DetailedStatus = model.BMMProvisioning
				r.Nodes[b].Exists = false
			}},
	} {
		for _, held := range []time.Duration{tc.threshold - time.Second, tc.threshold} {
			t.Run(tc.name+" "+held.String(), func(t *testing.T) {
				r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
				tc.set(r, tc.bmm)
				c := cfg
				c.Interval = dur(held)
				m := newMonRun(t, r, c)
				st := m.run(held + time.Second/2) // after the second round
				require.Equal(t, 2, st.Rounds)
				require.Len(t, st.Clocks, 1)
				require.Equal(t, tc.trig, st.Clocks[0].Trigger)
				require.Equal(t, held, st.Clocks[0].Held)
				if held < tc.threshold {
					require.False(t, st.Clocks[0].Due)
					require.Empty(t, m.started, "nothing starts below the threshold")
					return
				}
				require.True(t, st.Clocks[0].Due)
				require.Equal(t, []string{tc.bmm}, m.startedBMMs())
				require.Equal(t, tc.trig, m.started[0].Trigger)
				require.True(t, m.t0.Equal(m.started[0].Since))
			})
		}
	}
}

// Compute is exempt from node-Unknown (docs/behaviour.md#remediation).
func TestMonitorComputeUnknownIsNoTrigger(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Nodes["rack1-c1"].Ready = model.ReadyUnknown
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(time.Hour)})
	st := m.run(3*time.Hour + time.Minute)
	require.Empty(t, st.Clocks)
	require.Empty(t, m.started)
}

// A condition that clears before its threshold loses its clock; when it
// returns the threshold counts afresh.
func TestMonitorConditionClears(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Nodes["rack1-c1"].Rofs = true
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(time.Minute), ReadOnlyRootFilesystemFor: dur(10 * time.Minute)})
	m.after(5*time.Minute+30*time.Second, func() { r.Set("rack1-c1", func(n *wftest.FakeNode) { n.Rofs = false }) })
	m.after(6*time.Minute+30*time.Second, func() { require.Empty(t, m.status().Clocks, "cleared") })
	m.after(8*time.Minute+30*time.Second, func() { r.Set("rack1-c1", func(n *wftest.FakeNode) { n.Rofs = true }) })
	st := m.run(18*time.Minute + 30*time.Second)
	require.Empty(t, m.started, "9 minutes since it came back: not yet due")
	require.Len(t, st.Clocks, 1)
	require.True(t, m.t0.Add(9*time.Minute).Equal(st.Clocks[0].Since), st.Clocks[0].Since)
}

// Two control-plane nodes unhealthy: no control-plane remediation, the
// reason is visible and the ledger shows Degraded; compute goes on. When
// one recovers the guard lifts, the cluster is Running again and the other
// KCP is remediated.
func TestMonitorStormGuard(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Nodes["rack1-mgmt1"].Ready = model.ReadyUnknown
	r.Nodes["rack2-mgmt1"].Ready = model.ReadyUnknown
	r.Nodes["rack1-c1"].Rofs = true
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(10 * time.Minute), NodeUnknownFor: dur(30 * time.Minute),
		ReadOnlyRootFilesystemFor: dur(10 * time.Minute)})
	var storm api.MonitorStatus
	var ledgerStatus, ledgerMsg string
	m.after(30*time.Minute+time.Second, func() {
		storm = m.status()
		ledgerStatus, ledgerMsg = r.St.Cluster.DetailedStatus, r.St.Cluster.DetailedStatusMessage
	})
	m.after(35*time.Minute, func() { r.Set("rack1-mgmt1", func(n *wftest.FakeNode) { n.Ready = model.ReadyTrue }) })
	st := m.run(40*time.Minute + time.Second)

	require.Equal(t, []string{"rack1-mgmt1", "rack2-mgmt1"}, storm.UnhealthyControlPlane)
	require.Len(t, storm.Refusals, 2)
	for _, ref := range storm.Refusals {
		require.Contains(t, ref.Reason, "storm guard: 2 control-plane nodes unhealthy (etcd may be degraded): waiting for an operator")
	}
	require.Equal(t, model.ClusterDegraded, ledgerStatus)
	require.Contains(t, ledgerMsg, "storm guard: 2 control-plane nodes unhealthy (rack1-mgmt1, rack2-mgmt1)")
	require.Equal(t, []string{"rack1-c1", "rack2-mgmt1"}, m.startedBMMs(), "compute at once; the KCP once the guard lifted")
	require.Equal(t, 10*time.Minute, m.at[0])
	require.Equal(t, 40*time.Minute, m.at[1])
	require.Empty(t, st.Storm)
	require.Equal(t, model.ClusterRunning, r.St.Cluster.DetailedStatus)
}

// The storm guard never overrides an upgrade's status.
func TestMonitorStormLeavesAnUpgradeAlone(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.St.Cluster.DetailedStatus = model.ClusterUpdating
	r.Nodes["rack1-mgmt1"].Ready = model.ReadyUnknown
	r.Nodes["rack2-mgmt1"].Ready = model.ReadyUnknown
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(time.Minute)})
	st := m.run(2*time.Minute + time.Second)
	require.NotEmpty(t, st.Storm)
	require.Equal(t, model.ClusterUpdating, r.St.Cluster.DetailedStatus)
}

// maxConcurrentCompute caps compute remediations in flight; the one that
// waited starts once a slot frees.
func TestMonitorComputeCap(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	for _, b := range []string{"rack1-c1", "rack1-c2", "rack1-c3"} {
		r.Nodes[b].Rofs = true
	}
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(time.Minute), ReadOnlyRootFilesystemFor: dur(2 * time.Minute), MaxConcurrentCompute: 2})
	m.hold = 150 * time.Second
	var capped api.MonitorStatus
	m.after(2*time.Minute+time.Second, func() { capped = m.status() })
	m.run(5*time.Minute + time.Second)
	require.Len(t, capped.Active, 2)
	require.Len(t, capped.Refusals, 1)
	require.Equal(t, "rack1-c3", capped.Refusals[0].BMM)
	require.Contains(t, capped.Refusals[0].Reason, "compute remediations in flight: 2 of maxConcurrentCompute 2")
	require.Equal(t, []string{"rack1-c1", "rack1-c2", "rack1-c3"}, m.startedBMMs())
	require.Equal(t, 5*time.Minute, m.at[2], "the first round after the slots freed")
}

// A BMM someone else holds waits, with the holder in the reason.
func TestMonitorLeaseConflict(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Nodes["rack1-c1"].Rofs = true
	r.St.Leases = []lease.Lease{{BMM: "rack1-c1", Holder: "action:site-a:rack1-c1:1", Operation: "reimage", Disruptive: true}}
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(time.Minute), ReadOnlyRootFilesystemFor: dur(time.Minute)})
	st := m.run(2*time.Minute + time.Second)
	require.Empty(t, m.started)
	require.Len(t, st.Refusals, 1)
	require.Contains(t, st.Refusals[0].Reason, "held by action:site-a:rack1-c1:1 (reimage)")
}

// A remediation in flight is not started twice; once it closes, its
// outcome is in the recent list.
func TestMonitorTracksItsChildren(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Nodes["rack1-c1"].Rofs = true
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(time.Minute), ReadOnlyRootFilesystemFor: dur(time.Minute)})
	m.hold = 3*time.Minute + 30*time.Second
	var during api.MonitorStatus
	m.after(3*time.Minute+time.Second, func() { during = m.status() })
	m.after(4*time.Minute+time.Second, func() { r.Set("rack1-c1", func(n *wftest.FakeNode) { n.Rofs = false }) })
	st := m.run(6*time.Minute + time.Second)
	require.Equal(t, []string{"rack1-c1"}, m.startedBMMs())
	require.Len(t, during.Active, 1)
	require.Equal(t, api.RemediationID("site-a", "rack1-c1"), during.Active[0].WorkflowID)
	require.Contains(t, during.Refusals[0].Reason, "already being remediated")
	require.Empty(t, st.Active)
	require.Len(t, st.Recent, 1)
	require.Equal(t, "stand-in done", st.Recent[0].Outcome)
}

// The monitor continues as new after RoundsPerRun rounds, carrying its
// clocks so a trigger's time is not lost.
func TestMonitorContinuesAsNewWithClocks(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Nodes["rack1-c1"].Rofs = true
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(time.Minute)})
	m.env.ExecuteWorkflow(HealthMonitorWorkflow, api.MonitorInput{Cluster: "site-a", RoundsPerRun: 3})
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(m.env.GetWorkflowError(), &can))
	var next api.MonitorInput
	require.NoError(t, wftest.ConverterFor().FromPayloads(can.Input, &next))
	require.NotNil(t, next.Carry)
	require.Equal(t, 1, next.Carry.Runs)
	require.Len(t, next.Carry.Clocks, 1)
	require.Equal(t, "rack1-c1", next.Carry.Clocks[0].BMM)
	require.Equal(t, remediate.ReadOnlyRootFS, next.Carry.Clocks[0].Trigger)
	require.True(t, m.t0.Equal(next.Carry.Clocks[0].Since), "the clock keeps its start")
	require.Equal(t, 3, r.Observed, "one batched observation per round")
}
