package cluster

import (
	"errors"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"
)

var autoUpgrade = workflow.ContinueAsNewVersioningBehavior(workflow.ContinueAsNewVersioningBehaviorAutoUpgrade)

// ledgerCAN runs the ledger, acquiring leases at 1 s; at 2 s another build
// becomes the target. It returns the continue-as-new and the next input.
func ledgerCAN(t *testing.T, in api.ClusterInput, leases []string) (*workflow.ContinueAsNewError, api.ClusterInput, []*wftest.UpdateResult) {
	env := wftest.NewEnv()
	env.SetStartTime(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)) // recorded carries do not change with the day
	var results []*wftest.UpdateResult
	env.RegisterDelayedCallback(func() {
		for i, b := range leases {
			r := &wftest.UpdateResult{}
			results = append(results, r)
			wftest.SendUpdate(env, api.UpdateAcquireLease, "u"+b, r, lease.Request{BMM: b, Holder: "h" + string(rune('0'+i)), Operation: "cordon"})
		}
	}, time.Second)
	env.RegisterDelayedCallback(func() { env.SetTargetWorkerDeploymentVersionChanged(true) }, 2*time.Second)
	env.ExecuteWorkflow(ClusterWorkflow, in)
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "want continue-as-new, got %v", env.GetWorkflowError())
	var next api.ClusterInput
	require.NoError(t, wftest.ConverterFor().FromPayloads(can.Input, &next))
	next = unpacked(t, next)
	require.NotNil(t, next.Carry)
	return can, next, results
}

// Another build becomes current while leases are held: the ledger moves to
// it at once (not at its next sweep), every lease carried, asking the
// server for the target build.
func TestLedgerMovesToANewBuildKeepingLeases(t *testing.T) {
	in := fourRackInput(t)
	in.LeaseSweep = time.Hour // the move does not wait for a sweep
	can, next, results := ledgerCAN(t, in, []string{"rack1-c1", "rack2-c1", "rack3-c1"})
	require.Equal(t, autoUpgrade, can.InitialVersioningBehavior)
	for _, r := range results {
		require.True(t, r.Done)
		require.NoError(t, r.Rejected)
	}
	require.Len(t, next.Carry.Leases, 3)
	require.Equal(t, 1, next.Carry.Runs)
	require.Equal(t, time.Hour, next.LeaseSweep, "its settings go with it")
}

// An idle ledger (no lease, no timer) moves on its next workflow task.
func TestIdleLedgerMovesToANewBuild(t *testing.T) {
	can, next, _ := ledgerCAN(t, fourRackInput(t), nil)
	require.Equal(t, autoUpgrade, can.InitialVersioningBehavior)
	require.Empty(t, next.Carry.Leases)
}

// A history trim with no new build stays on the build (the next run
// inherits it).
func TestLedgerTrimStaysOnItsBuild(t *testing.T) {
	env := wftest.NewEnv()
	in := fourRackInput(t)
	in.ContinueAsNewAfter = 30
	env.RegisterDelayedCallback(func() { env.SetCurrentHistoryLength(31) }, time.Second)
	env.ExecuteWorkflow(ClusterWorkflow, in)
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "want continue-as-new, got %v", env.GetWorkflowError())
	require.Equal(t, workflow.ContinueAsNewVersioningBehavior(workflow.ContinueAsNewVersioningBehaviorUnspecified), can.InitialVersioningBehavior)
}
