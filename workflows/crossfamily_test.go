package workflows

// The tests that span workflow families: each runs workflows of two
// families on one fake site.

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/actions"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/rackroll/rackroll/workflows/remediation"
	"github.com/rackroll/rackroll/workflows/upgrade"
	"github.com/rackroll/rackroll/workflows/upgrade/server"
	"github.com/stretchr/testify/require"
)

// The cross-family tests start the upgrade's children and the actions by name.
func init() {
	wftest.Workflows[api.RackUpgradeWorkflowName] = upgrade.RackUpgradeWorkflow
	wftest.Workflows[api.ServerUpgradeWorkflowName] = server.ServerUpgradeWorkflow
	wftest.Workflows[api.BMMActionWorkflowName] = actions.BMMActionWorkflow
	wftest.Workflows[api.TroubleshootWorkflowName] = actions.TroubleshootWorkflow
}

// While an upgrade owes servers, a reimage action installs the target on
// a server whose phase has run, not the server's own old version.
func TestReimageInstallsTheVersionTheClusterConvergesTo(t *testing.T) {
	f := wftest.NewActionSite(t)
	f.Failing[wftest.Compute] = "image checksum mismatch"
	wftest.RunUpgrade(t, f, upgrade.RuntimeUpgradeWorkflow)
	require.Equal(t, "4.1.2", f.LedgerBMM(wftest.Compute).RuntimeVersion)
	delete(f.Failing, wftest.Compute)
	b := f.Bmm(wftest.Compute)
	b.DetailedStatus, b.DetailedStatusMessage = model.BMMProvisioned, "" // as an operator's repair leaves it

	res, err := f.RunAction(t, wftest.Act(api.ActionReimage, wftest.Compute))
	require.NoError(t, err)
	require.Contains(t, res.Message, "on runtime 4.2.0")
	require.Equal(t, "4.2.0", f.LedgerBMM(wftest.Compute).RuntimeVersion)
	require.Equal(t, wftest.Compute+"@4.2.0", f.Reimages[len(f.Reimages)-1])
}

// The failed spare, and any BMM remediation gave up on, returns to service
// through a Replace, which forgets its ladder with its mark: its next
// remediation starts from the top.
func TestReplaceClearsLadder(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Set("rack1-c1", func(n *wftest.FakeNode) { n.Rofs = true })
	r.Failing["rack1-c1"] = "the installer failed"
	wftest.RunRemediation(t, r, "rack1-c1", remediate.ReadOnlyRootFS, remediation.RemediationWorkflow, remediation.KCPFailoverWorkflow)
	b := r.Bmm("rack1-c1")
	require.True(t, b.MarkedUnhealthy())
	require.Equal(t, []string{"reprovision", "mark-unhealthy", "power-off"}, b.Ladder.Steps)

	delete(r.Failing, "rack1-c1")
	r.St.BMCCredentials = map[string]model.CredentialRef{"default": {UsernameEnv: "U", PasswordEnv: "P"}}
	_, err := r.RunAction(t, api.ActionInput{Cluster: "site-a", BMM: "rack1-c1", Action: api.ActionReplace,
		ReplaceParams: api.ReplaceParams{SerialNumber: "SN-NEW", BMCCredentials: "default", StoragePolicy: api.StoragePreserve}})
	require.NoError(t, err)
	b = r.Bmm("rack1-c1")
	require.False(t, b.MarkedUnhealthy())
	require.Nil(t, b.Ladder, "a Replace clears the ladder with the mark")
	require.Nil(t, b.ProvisioningSince, "and its provisioning ended with the node back")
}
