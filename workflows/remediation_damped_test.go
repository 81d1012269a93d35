package workflows

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/rackroll/rackroll/workflows/remediation"
	"github.com/stretchr/testify/require"
)

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
