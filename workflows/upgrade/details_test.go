package upgrade

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

func TestUpgradeDetails(t *testing.T) {
	st := api.UpgradeStatus{DetailedStatus: model.ClusterUpdatePaused, DetailedStatusMessage: "rack rack1 missed its threshold", Phase: api.PhaseCompute,
		ControlPlane: api.UnitStatus{Name: "control-plane", State: api.StateSucceeded, Total: 3, Succeeded: 3, Required: 3},
		Racks: []api.UnitStatus{
			{Name: "rack1", State: api.StatePaused, Total: 2, Succeeded: 1, Failed: 1, Required: 2,
				Servers: []api.ServerStatus{{Name: "rack1-c1", State: api.StateSucceeded}, {Name: "rack1-c2", State: api.StateFailed}}},
			{Name: "rack2", Total: 2, Required: 2, Servers: []api.ServerStatus{{Name: "rack2-c1", State: api.StateRunning}}},
		}}
	got := upgradeDetails(st)
	require.Equal(t, "**UpdatePaused**, phase **Compute**, in flight: rack2-c1  \nrack rack1 missed its threshold\n\n"+
		"| unit | state | upgraded | needed | failed |\n|---|---|---|---|---|\n"+
		"| control plane | Succeeded | 3 of 3 | 3 | none |\n"+
		"| rack1 | Paused | 1 of 2 | 2 | rack1-c2 |\n"+
		"| rack2 | Pending | 0 of 2 | 2 | none |\n", got)
}
