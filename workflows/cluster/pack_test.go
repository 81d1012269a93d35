package cluster

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"
)

// A ledger of 1,088 servers (32 racks of 32 computes) continues as new
// with its input packed: far under Temporal's payload limit (its JSON is
// 666 KiB), read back whole by the next run; a build that reads carry
// formats below 3 refuses it rather than take it for an empty inventory.
func TestLedgerPacksItsCarryAtScale(t *testing.T) {
	inv := lab.SyntheticInventory("site-h", 32, 2, 32)
	inv.Kubernetes.Kubeconfig = filepath.Join(t.TempDir(), "unused")
	placed, err := placement.Place(inv)
	require.NoError(t, err)
	env := wftest.QuietEnv()
	env.RegisterDelayedCallback(func() { env.SetCurrentHistoryLength(31) }, 2*time.Second)
	env.ExecuteWorkflow(ClusterWorkflow, api.ClusterInput{Inventory: *inv, Placement: placed, ContinueAsNewAfter: 30})
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "%v", env.GetWorkflowError())
	size := len(can.Input.Payloads[0].Data)
	t.Logf("%d servers: continue-as-new input %d KiB", len(inv.Servers()), size>>10)
	require.Less(t, size, 128<<10, "packed: far under 2 MB")

	var next api.ClusterInput
	require.NoError(t, wftest.ConverterFor().FromPayloads(can.Input, &next))
	require.NotEmpty(t, next.Packed)
	require.Equal(t, selfupgrade.FormatPackedLedger, next.CarryHeader.MinReader)
	require.Error(t, selfupgrade.CheckCarry("ClusterWorkflow", next.CarryHeader, 2, "old"), "a format-2 build refuses it")
	open, err := next.Unpacked()
	require.NoError(t, err)
	require.Len(t, open.Carry.Cluster.BMMs, len(inv.Servers()))
	require.Equal(t, inv.Cluster, open.Inventory.Cluster)
	require.Len(t, open.Placement, len(placed))

	// The next run reads it: the same ledger, one run later.
	env2 := wftest.QuietEnv()
	env2.RegisterDelayedCallback(func() {
		st := queryState(t, env2)
		require.Len(t, st.Cluster.BMMs, len(inv.Servers()))
		require.Equal(t, 1, st.Runs)
		env2.CancelWorkflow()
	}, time.Second)
	env2.ExecuteWorkflow(ClusterWorkflow, next)
}

// unpacked is a ledger's continue-as-new input as its next run reads it.
func unpacked(t *testing.T, in api.ClusterInput) api.ClusterInput {
	t.Helper()
	out, err := in.Unpacked()
	require.NoError(t, err)
	return out
}
