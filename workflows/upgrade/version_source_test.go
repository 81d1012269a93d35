package upgrade

import (
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"
)

// Nodes that show no version through the site's source (say, stock
// kubelets whose osImage carries none) could never be seen back on the
// target: the upgrade is refused before any server is touched, naming
// the nodes and what to set, instead of failing its first reimage hours
// later.
func TestUpgradeRefusedWhenTheNodesShowNoVersion(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("two-rack.yaml"))
	f.Nodes["rack1-c1"].Version, f.Nodes["rack2-c2"].Version = "", ""

	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	err := env.GetWorkflowError()
	require.Error(t, err)
	for _, want := range []string{"preflight: 2 of", "nodes show no runtime version through osImage", "rack1-c1 shows none", "rack2-c2 shows none",
		"kubernetes.osImagePattern", "docs/production.md#image-contract", "no server was touched"} {
		require.ErrorContains(t, err, want)
	}
	require.Equal(t, 1, f.Observed, "one read of the nodes")
	require.Empty(t, f.Reimages)
	require.Empty(t, f.Cordoned)
	require.Empty(t, f.St.Leases)
	require.Equal(t, model.ClusterRunning, f.St.Cluster.DetailedStatus, "the cluster is left as it was")
}

// Histories recorded before the preflight replay without its read.
func TestRecordedHistoriesSkipTheVersionSourcePreflight(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("two-rack.yaml"))
	env.OnGetVersion(changeVersionSourcePreflight, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)

	env.ExecuteWorkflow(RuntimeUpgradeWorkflow, wftest.UpgradeInput(model.UpdateStrategy{}))
	require.NoError(t, env.GetWorkflowError())
	require.Zero(t, f.Observed, "no read of the nodes")
	require.Equal(t, "4.2.0", f.St.Cluster.RuntimeVersion)
}
