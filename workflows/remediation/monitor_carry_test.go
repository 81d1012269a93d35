package remediation

import (
	"errors"
	"flag"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/workflow"
)

// The monitor's continue-as-new input as each build wrote it. A moved run
// (docs/self-upgrade-moves.md#moving-at-a-safe-point) starts on a newer build
// from what an older one wrote, and after a rollback on an older build from
// what a newer one wrote: every file here stays, and every build must read
// every one. `go test ./workflows/remediation -run Carry -update-carry`
// writes this build's as monitorCarryFile; a new format gets a new file.
var updateCarry = flag.Bool("update-carry", false, "write this build's monitor continue-as-new input to workflows/testdata/carry")

const monitorCarryFile = "HealthMonitorWorkflow-1.json"

// carryStart pins the test clock, so the files do not change with the day.
var carryStart = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// monitorCarry runs the monitor on the four-rack site until it continues
// as new, and returns the next run's input as the payload the server
// stores. Fresh (in without a carry): rack1-c1 is remediated, rack2-c1
// turns read-only later, so the carry has a finished remediation and a
// clock running. Taking over a carry: the site is as that one left it,
// rack2-c1 still read-only.
func monitorCarry(t *testing.T, in api.MonitorInput) (*commonpb.Payload, api.MonitorInput) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(time.Minute), ReadOnlyRootFilesystemFor: dur(2 * time.Minute)})
	m.env.SetStartTime(carryStart)
	if in.Carry == nil {
		r.Nodes["rack1-c1"].Rofs = true
		m.after(3*time.Minute+30*time.Second, func() { r.Set("rack2-c1", func(n *wftest.FakeNode) { n.Rofs = true }) })
	} else {
		// Taken over a minute after the carry was written, before
		// rack2-c1's clock is due.
		m.env.SetStartTime(carryStart.Add(5 * time.Minute))
		r.Nodes["rack2-c1"].Rofs = true
	}
	m.env.ExecuteWorkflow(HealthMonitorWorkflow, in)
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(m.env.GetWorkflowError(), &can), "the monitor continues as new: %v", m.env.GetWorkflowError())
	require.Len(t, can.Input.Payloads, 1)
	var next api.MonitorInput
	require.NoError(t, wftest.ConverterFor().FromPayloads(can.Input, &next))
	return can.Input.Payloads[0], next
}

func TestMonitorReadsEveryRecordedCarry(t *testing.T) {
	p, now := monitorCarry(t, api.MonitorInput{Cluster: "site-a", RoundsPerRun: 5})
	require.NotNil(t, now.Carry)
	require.Len(t, now.Carry.Recent, 1, "the rack1-c1 remediation finished")
	require.Len(t, now.Carry.Clocks, 1, "rack2-c1's clock runs")
	if *updateCarry {
		require.NoError(t, wftest.WriteCarry(monitorCarryFile, p))
	}
	wftest.EachCarry(t, api.HealthMonitorWorkflowName, func(t *testing.T, f string, old api.MonitorInput) {
		require.NotNil(t, old.Carry, "%s has no carry", f)
		// This build takes the run over: one more round, and its own
		// carry keeps what the old one handed over.
		in := old
		in.RoundsPerRun = 1
		_, next := monitorCarry(t, in)
		require.Equal(t, old.Cluster, next.Cluster)
		require.Equal(t, old.Carry.Runs+1, next.Carry.Runs, "the generations go on")
		require.Subset(t, next.Carry.Recent, old.Carry.Recent, "the finished remediations are remembered")
		for _, c := range old.Carry.Clocks {
			found := false
			for _, n := range next.Carry.Clocks {
				if n.BMM == c.BMM && n.Trigger == c.Trigger {
					found = true
					require.True(t, c.Since.Equal(n.Since), "%s's %s clock keeps its start", c.BMM, c.Trigger)
				}
			}
			require.True(t, found, "%s's %s clock is carried on", c.BMM, c.Trigger)
		}
	})
}
