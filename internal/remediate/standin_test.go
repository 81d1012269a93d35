package remediate

import (
	"testing"

	"github.com/rackroll/rackroll/internal/model/modeltest"
	"github.com/stretchr/testify/require"
)

func TestNextKCP(t *testing.T) {
	twoRacks := []string{"rack1-m1:kcp!", "rack1-m2:management/a", "rack2-m1:kcp-spare", "rack2-m2:management/b"}
	fourRacks := []string{"rack1-m1:kcp", "rack1-m2:management/a", "rack2-m1:kcp!", "rack2-m2:management/b",
		"rack3-m1:kcp", "rack3-m2:management/a", "rack4-m1:kcp-spare", "rack4-m2:management/b", "rack4-c1:compute"}
	spareFailed := map[string]string{"rack2-m1": "its provisioning failed"}
	for _, tc := range []struct {
		name    string
		bmms    []string
		failed  string
		refused map[string]string
		want    string
		why     string // Refusals of the servers not picked
	}{
		{"the spare first when it is usable", twoRacks, "rack1-m1", nil, "rack2-m1", "no spare and no management server"},
		// Both racks are without a KCP: the other rack than the failed one's.
		{"2 racks, the spare failed: management in the other rack", twoRacks, "rack1-m1", spareFailed, "rack2-m2",
			"rack2-m1: its provisioning failed"},
		{"2 racks, the other rack has none left: the failed KCP's rack", modeltest.Replace(twoRacks, "rack2-m2:management/b", "rack2-m2:management/b?"),
			"rack1-m1", spareFailed, "rack1-m2", "rack2-m1: its provisioning failed; rack2-m2: its node is not Ready (Unknown)"},
		// rack2 and rack4 have no active KCP; rack2 is the failed one's.
		{"4 racks, the spare failed", fourRacks, "rack2-m1", map[string]string{"rack4-m1": "its provisioning failed"}, "rack4-m2",
			"rack4-m1: its provisioning failed"},
		{"4 racks, rack4 has none left", modeltest.Replace(fourRacks, "rack4-m2:management/b", "rack4-m2:management/b!"), "rack2-m1",
			map[string]string{"rack4-m1": "its provisioning failed"}, "rack2-m2",
			"rack4-m1: its provisioning failed; rack4-m2: marked Unhealthy"},
		{"a deprovisioned spare is usable", modeltest.Replace(twoRacks, "rack2-m1:kcp-spare", "rack2-m1:kcp-spare~"), "rack1-m1", nil, "rack2-m1", ""},
		{"none left: each named with why", []string{"rack1-m1:kcp!", "rack1-m2:management/a!", "rack2-m1:kcp-spare", "rack2-m2:management/b?"},
			"rack1-m1", map[string]string{"rack2-m1": "its provisioning failed (reimage: boom)"}, "",
			"rack1-m2: marked Unhealthy; rack2-m1: its provisioning failed (reimage: boom); rack2-m2: its node is not Ready (Unknown)"},
		{"a lease refused counts as refused", twoRacks, "rack1-m1", map[string]string{"rack2-m1": "its provisioning failed", "rack2-m2": "lease refused: held by action:x"},
			"rack1-m2", "rack2-m1: its provisioning failed; rack2-m2: lease refused: held by action:x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := modeltest.Cluster(tc.bmms...)
			got, refusals := NextKCP(c, tc.failed, tc.refused)
			require.Equal(t, tc.want, got)
			if tc.why != "" {
				require.Equal(t, tc.why, Refusals(refusals))
			}
		})
	}
}

func TestPlanStandIn(t *testing.T) {
	twoRacks := []string{"rack1-m1:kcp!", "rack1-m2:management/a", "rack2-m1:kcp-spare!", "rack2-m2:management/b"}
	c := modeltest.Cluster(twoRacks...)
	_, noSpare := PlanFailover(c, "rack1-m1")
	require.ErrorIs(t, noSpare, ErrNoSpare)
	p, err := PlanStandIn(c, "rack1-m1", noSpare)
	require.NoError(t, err)
	require.Equal(t, "rack2-m2", p.Spare, "the other rack's management server")
	require.Equal(t, "rack1-m2", p.NewSpare)
	require.Equal(t, []RoleChange{{BMM: "rack2-m2", From: "management", To: "kcp"}, newSpare("rack1-m2"), relabel("rack1-m1", "kcp", p.FailedNewGroup)}, p.RoleChanges)

	none := modeltest.Cluster("rack1-m1:kcp!", "rack1-m2:management/a?", "rack2-m1:kcp-spare!", "rack2-m2:management/b!")
	_, err = PlanStandIn(none, "rack1-m1", noSpare)
	require.ErrorContains(t, err, "no server can take its place (rack1-m2: its node is not Ready (Unknown); rack2-m1: marked Unhealthy; rack2-m2: marked Unhealthy)")
}
