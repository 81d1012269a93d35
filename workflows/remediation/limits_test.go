package remediation

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// Reference rule: a KCP whose reboot does not bring it back is failed
// over. A BMC that accepts the reset and never powers the machine on ends
// the reboot at rebootTimeout, so the spare is promoted in time.
func TestRemediationRebootEndsAtRebootTimeout(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.St.Remediation.RebootTimeout = model.Duration(20 * time.Second)
	r.Set("rack2-mgmt1", func(n *wftest.FakeNode) { n.Ready = model.ReadyUnknown })
	r.Delay["Restart"] = wftest.Hung
	st := wftest.RunRemediation(t, r, "rack2-mgmt1", remediate.NodeUnknown, RemediationWorkflow, KCPFailoverWorkflow)
	require.Equal(t, []string{"reboot:failed", "mark-unhealthy:ok", "failover:ok"}, ranSteps(st.Steps))
	reboot := st.Steps[0]
	require.Contains(t, reboot.Detail, "restart of rack2-mgmt1 did not bring its node back within 20s (remediation.rebootTimeout)")
	require.LessOrEqual(t, reboot.FinishedAt.Sub(reboot.StartedAt), 20*time.Second+wftest.Slack)
	require.Equal(t, model.RoleKCP, r.Role("rack4-mgmt1"), "the spare is an active KCP")
}
