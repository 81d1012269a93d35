package cluster

import (
	"errors"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

func TestRunTooLong(t *testing.T) {
	for _, c := range []struct {
		length    int
		suggested bool
		override  int
		short     bool
		want      bool
	}{
		{length: 999, short: true, want: false},
		{length: RunEvents, short: true, want: true},
		{length: 2000, short: false, want: false}, // recorded before the change: the server's word only
		{length: 10, suggested: true, short: false, want: true},
		{length: 10, suggested: true, short: true, want: true},
		{length: 29, override: 30, short: true, want: false},
		{length: 30, override: 30, want: true},
		{length: 5000, override: 6000, short: true, want: false}, // a test's override wins over the default
	} {
		if got := runTooLong(c.length, c.suggested, c.override, c.short); got != c.want {
			t.Errorf("runTooLong(%d, %v, %d, %v) = %v, want %v", c.length, c.suggested, c.override, c.short, got, c.want)
		}
	}
}

// runLedgerPast runs a ledger whose history is length events when it
// takes a lease; one second later it checks the run still goes on (why
// names the rule), then calls end, which should make it continue as new.
// It returns the continue-as-new, failing the test on anything else.
func runLedgerPast(t *testing.T, env *testsuite.TestWorkflowEnvironment, length int, why string, end func()) *workflow.ContinueAsNewError {
	t.Helper()
	var first wftest.UpdateResult
	reached := false
	env.RegisterDelayedCallback(func() {
		env.SetCurrentHistoryLength(length)
		wftest.SendUpdate(env, api.UpdateAcquireLease, "u1", &first, lease.Request{BMM: "rack1-c1", Holder: "h1", Operation: "cordon"})
	}, time.Second)
	env.RegisterDelayedCallback(func() {
		reached = true
		require.True(t, first.Done)
		require.Len(t, queryState(t, env).Leases, 1, "the run goes on "+why)
		end()
	}, 2*time.Second)
	// A run that never ends would otherwise wait forever on the test's clock.
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
	env.ExecuteWorkflow(ClusterWorkflow, fourRackInput(t))
	require.True(t, reached, "the run ended "+why)
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "want continue-as-new, got %v", env.GetWorkflowError())
	return can
}

// A ledger without an override continues as new at RunEvents events, the
// server not having suggested it, and not a step before.
func TestLedgerRunEndsAtRunEvents(t *testing.T) {
	env := wftest.NewEnv()
	can := runLedgerPast(t, env, RunEvents-1, "below RunEvents", func() { env.SetCurrentHistoryLength(RunEvents) })
	var next api.ClusterInput
	require.NoError(t, wftest.ConverterFor().FromPayloads(can.Input, &next))
	require.Len(t, unpacked(t, next).Carry.Leases, 1, "the next run carries the lease")
}

// A run recorded before ledger-short-runs keeps the server's word: past
// RunEvents it goes on, and it continues as new once the server suggests.
func TestLedgerRunBeforeShortRunsWaitsForTheServer(t *testing.T) {
	env := wftest.NewEnv()
	env.OnGetVersion(changeLedgerShortRuns, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	runLedgerPast(t, env, 2*RunEvents, "past RunEvents without the server's word", func() { env.SetContinueAsNewSuggested(true) })
}
