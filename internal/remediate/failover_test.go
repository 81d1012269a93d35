package remediate

import (
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func promote(bmm string) RoleChange {
	return RoleChange{BMM: bmm, From: model.RoleKCPSpare, To: model.RoleKCP}
}

func newSpare(bmm string) RoleChange {
	return RoleChange{BMM: bmm, From: model.RoleManagement, To: model.RoleKCPSpare}
}

func relabel(bmm string, from model.Role, group string) RoleChange {
	return RoleChange{BMM: bmm, From: from, To: model.RoleManagement, Group: group}
}

func TestPlanFailover(t *testing.T) {
	fourRacks := []string{"rack1-m1:kcp", "rack1-m2:management/a", "rack2-m1:kcp!", "rack2-m2:management/b",
		"rack3-m1:kcp", "rack3-m2:management/a", "rack4-m1:kcp-spare", "rack4-m2:management/b", "rack4-c1:compute"}
	threeRacks := []string{"rack1-m1:kcp", "rack1-m2:kcp-spare", "rack1-m3:management/a",
		"rack2-m1:kcp", "rack2-m2:management/b", "rack2-m3:management/a",
		"rack3-m1:kcp!", "rack3-m2:management/b", "rack3-m3:management/a"}
	twoRacks := []string{"rack1-m1:kcp!", "rack1-m2:management/a", "rack2-m1:kcp-spare", "rack2-m2:management/b"}
	for _, tc := range []struct {
		name   string
		bmms   []string
		failed string
		want   FailoverPlan
	}{
		// The spare in rack4 becomes active; rack2 is left without a KCP, so
		// its management server becomes the spare. Group b lost rack2-m2, so
		// the failed KCP joins b.
		{"4 racks", fourRacks, "rack2-m1", FailoverPlan{Failed: "rack2-m1", Spare: "rack4-m1", NewSpare: "rack2-m2", FailedNewGroup: "b",
			RoleChanges: []RoleChange{promote("rack4-m1"), newSpare("rack2-m2"), relabel("rack2-m1", model.RoleKCP, "b")}}},
		{"4 racks, the failed rack has no healthy management", modeltest.Replace(fourRacks, "rack2-m2:management/b", "rack2-m2:management/b?"), "rack2-m1",
			FailoverPlan{Failed: "rack2-m1", Spare: "rack4-m1", NewSpare: "rack1-m2", FailedNewGroup: "a",
				RoleChanges: []RoleChange{promote("rack4-m1"), newSpare("rack1-m2"), relabel("rack2-m1", model.RoleKCP, "a")}}},
		// rack1 keeps two KCPs (the promoted spare and rack1-m1); rack3 has none.
		{"3 racks", threeRacks, "rack3-m1", FailoverPlan{Failed: "rack3-m1", Spare: "rack1-m2", NewSpare: "rack3-m2", FailedNewGroup: "b",
			RoleChanges: []RoleChange{promote("rack1-m2"), newSpare("rack3-m2"), relabel("rack3-m1", model.RoleKCP, "b")}}},
		{"2 racks", twoRacks, "rack1-m1", FailoverPlan{Failed: "rack1-m1", Spare: "rack2-m1", NewSpare: "rack1-m2", FailedNewGroup: "a",
			RoleChanges: []RoleChange{promote("rack2-m1"), newSpare("rack1-m2"), relabel("rack1-m1", model.RoleKCP, "a")}}},
		{"an idle (Available) spare is promoted", modeltest.Replace(twoRacks, "rack2-m1:kcp-spare", "rack2-m1:kcp-spare~"), "rack1-m1",
			FailoverPlan{Failed: "rack1-m1", Spare: "rack2-m1", NewSpare: "rack1-m2", FailedNewGroup: "a",
				RoleChanges: []RoleChange{promote("rack2-m1"), newSpare("rack1-m2"), relabel("rack1-m1", model.RoleKCP, "a")}}},
		// No healthy management server: the spare is still promoted, the
		// spare slot stays empty and says why.
		{"no healthy management", []string{"rack1-m1:kcp!", "rack1-m2:management/a!", "rack2-m1:kcp-spare", "rack2-m2:management/b?"}, "rack1-m1",
			FailoverPlan{Failed: "rack1-m1", Spare: "rack2-m1", FailedNewGroup: "b", // rack1-m2 keeps its group a
				NoNewSpare:  "no healthy management server can become the new spare: 2 management servers, none Ready without the unhealthy mark; replace or repair one; the spare slot stays empty until one is repaired or replaced",
				RoleChanges: []RoleChange{promote("rack2-m1"), relabel("rack1-m1", model.RoleKCP, "b")}}},
		// The spare itself was lost: nothing to promote, a new spare in its rack.
		{"the spare failed", modeltest.Replace(fourRacks, "rack4-m1:kcp-spare", "rack4-m1:kcp-spare!"), "rack4-m1",
			FailoverPlan{Failed: "rack4-m1", NewSpare: "rack4-m2", FailedNewGroup: "b",
				RoleChanges: []RoleChange{newSpare("rack4-m2"), relabel("rack4-m1", model.RoleKCPSpare, "b")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PlanFailover(modeltest.Cluster(tc.bmms...), tc.failed)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestPlanFailoverErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		bmms   []string
		failed string
		want   string
	}{
		{"1 rack: no spare", []string{"rack1-m1:kcp!", "rack1-m2:kcp", "rack1-m3:kcp", "rack1-m4:management/a"}, "rack1-m1",
			"no failover for KCP rack1-m1: a single-rack site runs three KCPs and keeps no spare; rack1-m1 stays marked Unhealthy; a BMM Replace action returns it to service"},
		{"spare missing", []string{"rack1-m1:kcp!", "rack1-m2:management/a", "rack2-m1:kcp", "rack3-m1:kcp"}, "rack1-m1",
			"no failover for KCP rack1-m1: the spare is missing; rack1-m1 stays marked Unhealthy"},
		{"spare marked Unhealthy", []string{"rack1-m1:kcp!", "rack1-m2:management/a", "rack2-m1:kcp-spare!"}, "rack1-m1",
			"no failover for KCP rack1-m1: the spare rack2-m1 is marked Unhealthy too"},
		{"not a control-plane server", []string{"rack1-m1:kcp", "rack1-m2:management/a"}, "rack1-m2",
			"bmm rack1-m2 is management, not a KCP or the spare"},
		{"unknown BMM", []string{"rack1-m1:kcp"}, "ghost", "bmm ghost is not in cluster site-a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := PlanFailover(modeltest.Cluster(tc.bmms...), tc.failed)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}
