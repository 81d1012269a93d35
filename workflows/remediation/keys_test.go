package remediation

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// A reprovision reinstalled the server's OS, and its rackroll users went
// with it: the BMM keysets are re-established once it is back; a failed
// one reinstalled nothing that serves, and asks for nothing.
func TestReprovisionReestablishesKeys(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Set("rack1-c1", func(n *wftest.FakeNode) { n.Rofs = true })
	st := wftest.RunRemediation(t, r, "rack1-c1", remediate.ReadOnlyRootFS, RemediationWorkflow, KCPFailoverWorkflow)
	require.True(t, st.Recovered)
	require.Equal(t, []api.KeysetInput{{Cluster: "site-a", Nodes: true, AfterReinstall: true}}, r.KeysetRuns)

	failed := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	failed.Set("rack1-c1", func(n *wftest.FakeNode) { n.Rofs = true })
	failed.Failing["rack1-c1"] = "the installer failed"
	st = wftest.RunRemediation(t, failed, "rack1-c1", remediate.ReadOnlyRootFS, RemediationWorkflow, KCPFailoverWorkflow)
	require.False(t, st.Recovered)
	require.Empty(t, failed.KeysetRuns)
}
