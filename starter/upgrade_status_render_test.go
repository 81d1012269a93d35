package main

import (
	"bytes"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/stretchr/testify/require"
)

// statusMidCompute: the control plane and group a done, group b with a
// failure, rack1 running two servers, rack2 not started.
func statusMidCompute() api.UpgradeStatus {
	unit := func(name string, required int, states ...string) api.UnitStatus {
		var names []string
		for i := range states {
			names = append(names, name+"-s"+string(rune('1'+i)))
		}
		u := upgradeplan.NewUnit(name, names, required)
		for i, s := range states {
			u.Apply(api.ServerStatus{Name: names[i], State: s})
		}
		return u
	}
	st := api.UpgradeStatus{Phase: api.PhaseCompute, DetailedStatus: "Updating",
		ControlPlane: unit("control-plane", 2, api.StateSucceeded, api.StateSucceeded),
		ManagementGroups: []api.UnitStatus{unit("a", 1, api.StateSucceeded, api.StateSucceeded),
			unit("b", 1, api.StateSucceeded, api.StateFailed)},
		Racks: []api.UnitStatus{unit("rack1", 3, api.StateSucceeded, api.StateRunning, api.StateRunning, api.StatePending),
			unit("rack2", 1, api.StatePending, api.StatePending)},
	}
	st.ControlPlane.State, st.ManagementGroups[0].State, st.ManagementGroups[1].State = api.StateSucceeded, api.StateSucceeded, api.StateSucceeded
	st.Racks[0].State, st.Racks[1].State = api.StateRunning, api.StatePending
	return st
}

// The status table has one row per unit, in the upgrade's order, each
// named by its kind; the progress line names the unit in flight.
func TestUpgradeStatusTableAndProgressLine(t *testing.T) {
	st := statusMidCompute()
	var b bytes.Buffer
	require.NoError(t, writeUpgradeStatus(&b, "table", st))
	require.Equal(t, "UNIT           STATE      PROGRESS                    SUCCEEDED  FAILED  REQUIRED  FAILED SERVERS\n"+
		"control-plane  Succeeded  [####################] 2/2  2          0       2         -\n"+
		"management a   Succeeded  [####################] 2/2  2          0       1         -\n"+
		"management b   Succeeded  [####################] 2/2  1          1       1         b-s2\n"+
		"rack rack1     Running    [#####...............] 1/4  1          0       3         -\n"+
		"rack rack2     Pending    [....................] 0/2  0          0       1         -\n"+
		"failed b-s2: no reason recorded\n", b.String())
	require.Equal(t, "Compute Updating | rack1 [##........] 1/4 in flight: rack1-s2,rack1-s3", progressLine(st))
	st.Racks[0].State, st.Racks[1].State = api.StateSucceeded, api.StatePaused
	require.Equal(t, "Compute Updating | rack2 [..........] 0/2", progressLine(st), "a paused unit is the current one")
	st.Racks[1].State = api.StateSucceeded
	require.Equal(t, "Compute Updating", progressLine(st), "no unit in flight")
}

// Each failed server gets a line with its step and reason under the table
// (status and the end of start --wait both print it).
func TestUpgradeStatusSaysWhyEachServerFailed(t *testing.T) {
	st := statusMidCompute()
	st.ManagementGroups[1].Servers[1].Step = "reimage"
	st.ManagementGroups[1].Servers[1].Error = "BMC of b-s2 at https://10.0.1.12: mount the installer: the BMC shows a different image\n in /redfish/v1/Systems/1/VirtualMedia/1: http://other/x.iso"
	st.Racks[1].Servers[0].State = api.StateFailed // no reason recorded
	var b bytes.Buffer
	require.NoError(t, writeUpgradeStatus(&b, "table", st))
	require.Contains(t, b.String(), "\nfailed b-s2 at reimage: BMC of b-s2 at https://10.0.1.12: mount the installer: the BMC shows a different image in /redfish/v1/Systems/1/VirtualMedia/1: http://other/x.iso\n"+
		"failed rack2-s1: no reason recorded\n")
	require.Empty(t, failedReasons(api.UpgradeStatus{}), "no failed server, no line")
}

// The watch's summary gives each unit's time, named as the operator's
// texts name it, in the upgrade's order.
func TestSummaryListsEveryUnitInOrder(t *testing.T) {
	st := statusMidCompute()
	st.DetailedStatusMessage = "Runtime upgrade in progress"
	var b bytes.Buffer
	summary(&b, st)
	require.Equal(t, "control plane: -\nmanagement group a: -\nmanagement group b: -\nrack rack1: -\nrack rack2: -\n"+
		"Runtime upgrade in progress: 6 servers upgraded, 0 retired to spare, 1 failed (left cordoned), in -\n", b.String())
}
