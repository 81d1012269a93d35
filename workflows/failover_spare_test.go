package workflows

import (
	"slices"
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/stretchr/testify/require"
)

// Seed 1795264668403708375 of the remediation property test: a spare whose
// provisioning fails during a failover was left in Error, unmarked, and
// picked again by the next failover. Now it is marked Unhealthy, and
// neither the next failover nor the monitor touches it until a Replace.
func TestFailoverFailedSpareNeverChosenAgain(t *testing.T) {
	r := newFakeSite(t, "../examples/four-rack.yaml")
	const spare = "rack4-mgmt1"
	r.bmm(spare).DetailedStatus = model.BMMAvailable
	r.failing[spare] = "the installer failed"
	first := runFailover(t, r, "rack2-mgmt1")
	require.False(t, first.Promoted)
	require.True(t, r.bmm(spare).MarkedUnhealthy())

	// Another KCP fails: no failover picks the marked spare.
	delete(r.failing, spare)
	reimages := len(r.reimages)
	second := runFailover(t, r, "rack3-mgmt1")
	require.Contains(t, second.Error, "the spare "+spare+" is marked Unhealthy too")
	require.False(t, second.Promoted)
	require.Equal(t, model.RoleKCPSpare, r.role(spare))
	require.False(t, slices.Contains(r.reimages[reimages:], spare), "the marked spare is not provisioned again")

	// The monitor's remediation of it is refused: only a Replace repairs it.
	d := remediate.Admit(remediate.Due{BMM: spare, Role: model.RoleKCPSpare, Trigger: remediate.ProvisioningTimeout},
		remediate.Situation{Cluster: r.st.Cluster, MaxConcurrentCompute: 5})
	require.False(t, d.Start)
	require.Contains(t, d.Reason, "already marked Unhealthy")
}
