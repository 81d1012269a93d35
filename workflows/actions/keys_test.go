package actions

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/rackroll/rackroll/workflows/kernel"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// A Replace reinstalls the server's OS: once it is back in service the
// BMM keysets are re-established (the nodes run, started or told); a run
// recorded before the change asks for nothing.
func TestReplaceReestablishesKeys(t *testing.T) {
	s := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	res, err := startAs(t, s, 1, replaceIn(false), nil)
	require.NoError(t, err)
	require.Equal(t, "4.1.2", res.RuntimeVersion)
	require.Equal(t, []api.KeysetInput{{Cluster: "site-a", Nodes: true, AfterReinstall: true}}, s.KeysetRuns)

	before := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	_, err = startAs(t, before, 1, replaceIn(false), func(env *testsuite.TestWorkflowEnvironment) {
		env.OnGetVersion(kernel.ChangeKeysAfterReinstall, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	})
	require.NoError(t, err)
	require.Empty(t, before.KeysetRuns)
}
