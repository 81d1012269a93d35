package remediation

import (
	"errors"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"
)

// monitorCAN runs the monitor with a sick node until it continues as new,
// the server saying from the start whether another build is the target.
func monitorCAN(t *testing.T, targetChanged bool, rounds int) (*workflow.ContinueAsNewError, api.MonitorInput, *monRun) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Nodes["rack1-c1"].Rofs = true
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(time.Minute)})
	m.env.SetTargetWorkerDeploymentVersionChanged(targetChanged)
	m.env.ExecuteWorkflow(HealthMonitorWorkflow, api.MonitorInput{Cluster: "site-a", RoundsPerRun: rounds})
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(m.env.GetWorkflowError(), &can), "continued as new: %v", m.env.GetWorkflowError())
	var next api.MonitorInput
	require.NoError(t, wftest.ConverterFor().FromPayloads(can.Input, &next))
	return can, next, m
}

// A new current build: the monitor moves after its first round, asking the
// server for the target build, and carries its clocks and its settings.
func TestMonitorMovesToANewBuildBetweenRounds(t *testing.T) {
	can, next, m := monitorCAN(t, true, 1000)
	require.Equal(t, workflow.ContinueAsNewVersioningBehavior(workflow.ContinueAsNewVersioningBehaviorAutoUpgrade), can.InitialVersioningBehavior)
	require.Equal(t, 1, m.r.Observed, "it moved after one round")
	require.Equal(t, 1000, next.RoundsPerRun)
	require.NotNil(t, next.Carry)
	require.Equal(t, 1, next.Carry.Runs)
	require.Len(t, next.Carry.Clocks, 1)
	require.Equal(t, remediate.ReadOnlyRootFS, next.Carry.Clocks[0].Trigger)
	require.True(t, m.t0.Equal(next.Carry.Clocks[0].Since), "the clock keeps its start")
}

// No new build: the monitor trims its history as before, staying on its
// build (the run after continue-as-new inherits it).
func TestMonitorStaysWithoutANewBuild(t *testing.T) {
	can, next, m := monitorCAN(t, false, 3)
	require.Equal(t, workflow.ContinueAsNewVersioningBehavior(workflow.ContinueAsNewVersioningBehaviorUnspecified), can.InitialVersioningBehavior)
	require.Equal(t, 3, m.r.Observed)
	require.Equal(t, 1, next.Carry.Runs)
}

// A new build current ten seconds into the sleep between rounds (a wake's
// task): the sleep ends there, and the monitor moves after one more round,
// not at the end of its minute.
func TestMonitorWokenInItsSleepMovesAtOnce(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(time.Minute)})
	m.env.RegisterDelayedCallback(func() {
		m.env.SetTargetWorkerDeploymentVersionChanged(true)
		m.env.SignalWorkflow(api.SignalSelfUpgrade, nil)
	}, 10*time.Second)
	m.env.ExecuteWorkflow(HealthMonitorWorkflow, api.MonitorInput{Cluster: "site-a", RoundsPerRun: 1000})
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(m.env.GetWorkflowError(), &can), "continued as new: %v", m.env.GetWorkflowError())
	require.Equal(t, workflow.ContinueAsNewVersioningBehavior(workflow.ContinueAsNewVersioningBehaviorAutoUpgrade), can.InitialVersioningBehavior)
	require.Equal(t, 2, m.r.Observed, "the round before the wake, and one after it")
	require.Less(t, m.env.Now().Sub(m.t0), time.Minute, "moved before the minute's sleep was over")
}
