package remediation

import (
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/rackroll/rackroll/workflows/kernel"
	"go.temporal.io/sdk/workflow"
)

// Monitor bookkeeping limits.
const (
	// DefaultMonitorRoundsPerRun bounds the monitor's history: a round is a
	// handful of events, so a run stays well under the server's limits.
	DefaultMonitorRoundsPerRun = 200
	// monitorRecentKept is how many closed remediations query `status` and
	// `starter remediation list` remember.
	monitorRecentKept = 20
)

// HealthMonitorWorkflow watches one cluster (id monitor:<cluster>; see
// docs/behaviour.md#remediation). Every remediation interval it reads the
// ledger, observes every BMM's node in one batched activity, advances the
// durable trigger clocks (remediate.Observe), and starts a
// RemediationWorkflow for each due BMM that remediate.AdmitAll admits: not
// already remediated or leased, the storm guard (no control-plane
// remediation while more than one control-plane node is unhealthy) and the
// Compute cap. The storm guard is surfaced on the ledger as Degraded. It
// runs until terminated, continuing as new every RoundsPerRun rounds with
// its clocks and the remediations in flight.
func HealthMonitorWorkflow(ctx workflow.Context, in api.MonitorInput) error {
	if in.Carry != nil {
		kernel.TakeCarry(ctx, "HealthMonitorWorkflow", in.Carry.CarryHeader)
	}
	m := newMonitor(in)
	if err := workflow.SetQueryHandler(ctx, api.QueryStatus, func() (api.MonitorStatus, error) { return m.status(ctx), nil }); err != nil {
		return err
	}
	kernel.TakeWakes(ctx) // it moves between rounds; a wake changes nothing else
	rounds := in.RoundsPerRun
	if rounds <= 0 {
		rounds = DefaultMonitorRoundsPerRun
	}
	for {
		m.round(ctx)
		m.st.Rounds++
		info := workflow.GetInfo(ctx)
		// Between rounds nothing of the monitor is in flight (its
		// remediations go on, abandoned, and are carried), so a new current
		// rackroll build is taken here (docs/self-upgrade.md). The server
		// says so only to a versioned worker's run: recorded histories never
		// ask GetVersion here.
		move := selfupgrade.MoveNow(selfupgrade.Point{Name: "between rounds"}, info.GetTargetWorkerDeploymentVersionChanged())
		moving := move.Now && workflow.GetVersion(ctx, changeMonitorMovesBuild, workflow.DefaultVersion, monitorWakes) != workflow.DefaultVersion
		if m.st.Rounds >= rounds || info.GetContinueAsNewSuggested() || moving {
			next := in
			next.Carry = m.carry()
			next.Carry.CarryHeader = kernel.CarryHeader(ctx)
			if moving {
				// The next run's first task goes to the target build, where it
				// is pinned from then on; without this it would stay here.
				return workflow.NewContinueAsNewErrorWithOptions(ctx, workflow.ContinueAsNewErrorOptions{
					InitialVersioningBehavior: workflow.ContinueAsNewVersioningBehaviorAutoUpgrade}, HealthMonitorWorkflow, next)
			}
			return workflow.NewContinueAsNewError(ctx, HealthMonitorWorkflow, next)
		}
		if err := m.sleep(ctx); err != nil {
			return err // cancelled: the remediations in flight go on (abandoned)
		}
	}
}

// monitor is one run's state.
type monitor struct {
	in       api.MonitorInput
	st       api.MonitorStatus
	clocks   []remediate.Clock
	active   []*monChild
	recent   []api.RemediationRecord
	interval time.Duration
}

// monChild is a remediation in flight. fut is nil for one inherited from an
// earlier run (or found running): its end is learnt from its workflow state.
type monChild struct {
	rec api.ActiveRemediation
	fut workflow.ChildWorkflowFuture
}

func newMonitor(in api.MonitorInput) *monitor {
	m := &monitor{in: in, interval: time.Minute}
	m.st.Cluster = in.Cluster
	if c := in.Carry; c != nil {
		m.clocks, m.recent, m.st.Storm, m.st.Runs = c.Clocks, c.Recent, c.Storm, c.Runs
		for _, a := range c.Active {
			m.active = append(m.active, &monChild{rec: a})
		}
	}
	return m
}

func (m *monitor) carry() *api.MonitorCarry {
	c := &api.MonitorCarry{Clocks: m.clocks, Recent: m.recent, Storm: m.st.Storm, Runs: m.st.Runs + 1}
	for _, a := range m.active {
		c.Active = append(c.Active, a.rec)
	}
	return c
}

func (m *monitor) status(ctx workflow.Context) api.MonitorStatus {
	s := m.st
	s.Interval = m.interval
	s.Active = []api.ActiveRemediation{}
	for _, a := range m.active {
		s.Active = append(s.Active, a.rec)
	}
	s.Recent = append([]api.RemediationRecord{}, m.recent...)
	return s
}

// monitorWakes is monitor-moves-build's version since which the sleep
// between rounds ends when a new build is current (a wake's task shows
// it): the monitor moves after one more round, not a minute later.
// Version 1 slept the whole interval.
const monitorWakes = 2

// sleep waits the interval between rounds, or (since monitorWakes) until
// a new current build is seen.
func (m *monitor) sleep(ctx workflow.Context) error {
	if workflow.GetVersion(ctx, changeMonitorMovesBuild, workflow.DefaultVersion, monitorWakes) < monitorWakes {
		return workflow.Sleep(ctx, m.interval)
	}
	_, err := workflow.AwaitWithTimeout(ctx, m.interval, func() bool { return workflow.GetInfo(ctx).GetTargetWorkerDeploymentVersionChanged() })
	return err
}
