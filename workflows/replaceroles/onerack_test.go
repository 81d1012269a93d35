package replaceroles

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"
)

// One rack grown to two: its three KCPs become one and a spare in the new
// rack. Each demotion takes a member out for good, so the live gate keeps
// the quorum of those that stay: two members become one (a two-rack
// site's). A run recorded before changeRemovalQuorum judged the second
// demotion a disruption of two members and stopped there.
func TestReplaceRolesOneRackToTwo(t *testing.T) {
	grow := func() *wftest.FakeSite {
		f := wftest.NewFakeSite(t, wftest.Example("one-rack.yaml"))
		f.Grow("rack2-mgmt1:management/a", "rack2-mgmt2:management/b", "rack2-c1:compute")
		return f
	}
	f := grow()
	st := runReplaceRoles(t, f)
	require.Empty(t, st.Error)
	kcps, spares := 0, 0
	for _, b := range f.St.Cluster.BMMs {
		switch {
		case b.HasRole(model.RoleKCP):
			kcps++
		case b.HasRole(model.RoleKCPSpare):
			spares++
			require.Equal(t, "rack2", b.Rack, "the spare in the new rack")
		}
	}
	require.Equal(t, []int{1, 1}, []int{kcps, spares}, "the table's two-rack control plane")

	before := grow()
	env := before.NewEnv()
	env.OnGetVersion(changeRemovalQuorum, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	env.ExecuteWorkflow(ReplaceRolesWorkflow, api.ReplaceRolesInput{Cluster: before.St.Cluster.Name})
	require.NoError(t, env.GetWorkflowError())
	var old api.ReplaceRolesStatus
	require.NoError(t, env.GetWorkflowResult(&old))
	require.Contains(t, old.Error, "below quorum", "two members, one taken down: the disruption arithmetic")
}
