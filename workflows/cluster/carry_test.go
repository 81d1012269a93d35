package cluster

import (
	"flag"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// `go test ./workflows/cluster -run Carry -update-carry` records this
// build's continue-as-new input as ledgerCarryFile (wftest/carry.go); a new
// format gets a new file, and no file is ever removed.
var updateCarry = flag.Bool("update-carry", false, "write this build's ledger continue-as-new input to workflows/testdata/carry")

const ledgerCarryFile = "ClusterWorkflow-3.json" // format 3: packed

// Every recorded ledger carry is read by this build without losing a
// field, and the ledger taking it over keeps its leases and generations.
func TestLedgerReadsEveryRecordedCarry(t *testing.T) {
	can, now, _ := ledgerCAN(t, fourRackInput(t), []string{"rack1-c1", "rack2-c2"})
	require.Len(t, now.Carry.Leases, 2)
	if *updateCarry {
		require.NoError(t, wftest.WriteCarry(ledgerCarryFile, can.Input.Payloads[0]))
	}
	wftest.EachCarry(t, api.ClusterWorkflowName, func(t *testing.T, f string, recorded api.ClusterInput) {
		old := unpacked(t, recorded)
		require.NotNil(t, old.Carry, "%s has no carry", f)
		_, next, _ := ledgerCAN(t, recorded, nil)
		require.Equal(t, old.Carry.Runs+1, next.Carry.Runs, "the generations go on")
		require.Equal(t, old.Carry.Leases, next.Carry.Leases, "every lease is kept")
		require.Equal(t, old.Carry.Cluster.Name, next.Carry.Cluster.Name)
		require.Equal(t, len(old.Carry.Cluster.BMMs), len(next.Carry.Cluster.BMMs))
	})
}
