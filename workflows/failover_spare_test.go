package workflows

import (
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

// Issue 27: a spare that cannot be provisioned during a failover is not
// marked for one failed attempt. The next healthy management server by
// the placement rules (here rack4's, the other rack without a KCP)
// becomes the KCP, and the spare goes down the management ladder: a
// reboot, a reprovision, then — both failing — the mark.
func TestFailoverFallsBackWhenTheSpareCannotBeProvisioned(t *testing.T) {
	r := newFakeSite(t, "../examples/four-rack.yaml")
	const spare, standIn = "rack4-mgmt1", "rack4-mgmt2"
	r.bmm(spare).DetailedStatus = model.BMMAvailable
	r.failing[spare] = "the installer failed"
	r.rebootFails[spare] = true
	st := runFailover(t, r, "rack2-mgmt1")
	require.Empty(t, st.Error)
	require.True(t, st.Promoted)
	require.Equal(t, standIn, st.Plan.Spare, "the plan names the server promoted")
	require.Equal(t, model.RoleKCP, r.role(standIn))
	require.Equal(t, model.RoleKCPSpare, r.role(st.NewSpare))
	require.NotEqual(t, standIn, st.NewSpare)
	require.Equal(t, model.RoleManagement, r.role("rack2-mgmt1"))
	require.False(t, r.bmm("rack2-mgmt1").MarkedUnhealthy(), "the failed KCP serves as management again")

	b := r.bmm(spare)
	require.Equal(t, model.RoleManagement, r.role(spare))
	require.True(t, b.MarkedUnhealthy(), "the management ladder gave up on it")
	require.Equal(t, []string{"reboot", "reprovision", "mark-unhealthy"}, b.Ladder.Steps)
	require.Contains(t, b.Unhealthy.Reason, "management remediation gave up")
	require.Len(t, st.FallenOutcomes, 1)
	require.False(t, st.FallenOutcomes[0].Recovered)
	require.Empty(t, r.st.Leases)
	kcps := 0
	for _, x := range r.st.Cluster.BMMs {
		if x.HasRole(model.RoleKCP) && !x.MarkedUnhealthy() {
			kcps++
		}
	}
	require.Equal(t, 3, kcps, "the control plane is whole")
}

// One failed attempt is transient: the ladder's reboot brings the spare
// back, and it serves as management, unmarked.
func TestFailoverSpareThatFailsOnceIsNotMarked(t *testing.T) {
	r := newFakeSite(t, "../examples/two-rack.yaml")
	const spare = "rack2-mgmt1"
	r.bmm(spare).DetailedStatus = model.BMMAvailable
	r.failing[spare] = "a passing fault"
	r.onStep = func(activity, who string) error {
		if activity == "Restart" && who == spare {
			delete(r.failing, spare)
		}
		return nil
	}
	st := runFailover(t, r, "rack1-mgmt1")
	require.Empty(t, st.Error)
	require.True(t, st.Promoted)
	require.Equal(t, model.RoleKCP, r.role("rack2-mgmt2"), "the other rack's management server")
	require.Equal(t, model.RoleKCPSpare, r.role("rack1-mgmt2"))
	require.Equal(t, model.RoleManagement, r.role(spare))
	require.False(t, r.bmm(spare).MarkedUnhealthy())
	require.Len(t, st.FallenOutcomes, 1)
	require.True(t, st.FallenOutcomes[0].Recovered, st.FallenOutcomes[0].Outcome)
}

// No server can take the failed KCP's place: the site stays a KCP short,
// the cluster Degraded, the reason naming each candidate and why.
func TestFailoverWithNoStandInLeavesTheSiteDegraded(t *testing.T) {
	r := newFakeSite(t, "../examples/two-rack.yaml")
	const spare = "rack2-mgmt1"
	r.bmm(spare).DetailedStatus = model.BMMAvailable
	r.failing[spare] = "the installer failed"
	r.bmm("rack1-mgmt2").Unhealthy = &model.UnhealthyMark{Reason: "gave up", By: "remediate:x"}
	r.bmm("rack2-mgmt2").ReadyState = model.ReadyUnknown
	st := runFailover(t, r, "rack1-mgmt1")
	require.False(t, st.Promoted)
	require.Contains(t, st.Error, "control plane short of a KCP")
	for _, why := range []string{"rack1-mgmt2: marked Unhealthy", "rack2-mgmt1: its provisioning failed", "rack2-mgmt2: its node is not Ready (Unknown)"} {
		require.Contains(t, st.Error, why)
	}
	require.Equal(t, model.ClusterDegraded, r.st.Cluster.DetailedStatus)
	require.Contains(t, r.st.Cluster.DetailedStatusMessage, "rack2-mgmt2: its node is not Ready (Unknown)")
	require.True(t, r.bmm("rack1-mgmt1").MarkedUnhealthy())
	require.Equal(t, model.RoleKCP, r.role("rack1-mgmt1"))
	require.False(t, r.bmm(spare).MarkedUnhealthy(), "one failed attempt is no mark")
	require.Empty(t, r.st.Leases)
}
