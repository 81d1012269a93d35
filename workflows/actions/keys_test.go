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
	require.Len(t, s.Rechecked, 1, "a replace's BMC may be new: the BMC keysets' runs check it again")
	require.Equal(t, wftest.Compute, s.Rechecked[0].BMM)

	before := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	_, err = startAs(t, before, 1, replaceIn(false), func(env *testsuite.TestWorkflowEnvironment) {
		env.OnGetVersion(kernel.ChangeKeysAfterReinstall, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	})
	require.NoError(t, err)
	require.Empty(t, before.KeysetRuns)

	old := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	_, err = startAs(t, old, 1, replaceIn(false), func(env *testsuite.TestWorkflowEnvironment) {
		env.OnGetVersion(changeReplaceRechecksAccounts, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	})
	require.NoError(t, err)
	require.Empty(t, old.Rechecked, "a run recorded before the recheck asks for none")
}

// A reimage keeps the server's BMC, and its accounts: nothing to check.
func TestReimageChecksNoBMC(t *testing.T) {
	s := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	in := api.ActionInput{Cluster: "site-a", BMM: wftest.Compute, Action: api.ActionReimage}
	_, err := startAs(t, s, 1, in, nil)
	require.NoError(t, err)
	require.Len(t, s.KeysetRuns, 1, "the reimaged node gets the BMM keysets again")
	require.Empty(t, s.Rechecked)
}
