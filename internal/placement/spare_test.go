package placement

import (
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ledger is the BMMs of a modeltest cluster.
func ledger(entries ...string) []model.BMM { return modeltest.Cluster(entries...).BMMs }

func TestChooseNewSpare(t *testing.T) {
	fourRacks := []string{"rack1-m1:kcp", "rack1-m2:management", "rack2-m1:kcp", "rack2-m2:management",
		"rack3-m1:kcp", "rack3-m2:management", "rack4-m1:kcp-spare", "rack4-m2:management"}
	for _, tc := range []struct {
		name   string
		bmms   []string
		failed string
		want   string
	}{
		// The spare (rack4) becomes active; rack2 is then the one rack without a KCP.
		{"4 racks: new spare where the failed KCP was", fourRacks, "rack2-m1", "rack2-m2"},
		{"4 racks: rack2 has no healthy one", modeltest.Replace(fourRacks, "rack2-m2:management", "rack2-m2:management!"), "rack2-m1", "rack1-m2"},
		{"4 racks: not Ready is not healthy", modeltest.Replace(fourRacks, "rack2-m2:management", "rack2-m2:management?"), "rack2-m1", "rack1-m2"},
		{"3 racks", []string{"rack1-m1:kcp", "rack1-m2:kcp-spare", "rack1-m3:management", "rack2-m1:kcp", "rack2-m2:management",
			"rack3-m1:kcp", "rack3-m2:management"}, "rack3-m1", "rack3-m2"},
		{"3 racks: spare's rack is last choice", []string{"rack1-m1:kcp", "rack1-m2:kcp-spare", "rack1-m3:management",
			"rack2-m1:kcp", "rack2-m2:management", "rack3-m1:kcp", "rack3-m2:management!"}, "rack3-m1", "rack2-m2"},
		{"2 racks", []string{"rack1-m1:kcp", "rack1-m2:management", "rack2-m1:kcp-spare", "rack2-m2:management"}, "rack1-m1", "rack1-m2"},
		{"1 rack", []string{"rack1-m1:kcp", "rack1-m2:kcp", "rack1-m3:kcp", "rack1-m4:management"}, "rack1-m2", "rack1-m4"},
		// After the swap the ledger reads differently but the answer is the same.
		{"after the swap", []string{"rack1-m1:kcp", "rack1-m2:management", "rack2-m1:management", "rack2-m2:management",
			"rack3-m1:kcp", "rack3-m2:management", "rack4-m1:kcp", "rack4-m2:management"}, "rack2-m1", "rack2-m2"},
		{"the spare itself was lost", fourRacks, "rack4-m1", "rack4-m2"},
		{"no failure, spare missing", []string{"rack1-m1:kcp", "rack1-m2:management", "rack2-m1:kcp", "rack3-m1:kcp",
			"rack4-m1:management", "rack4-m2:management"}, "", "rack4-m1"},
		// rack1 loses its KCP but has no management server; rack9 and rack10
		// have no KCP: rack9 first, and m2 before m10.
		{"natural order breaks ties", []string{"rack1-m1:kcp", "rack2-m1:kcp", "rack3-m1:kcp", "rack4-m1:kcp-spare",
			"rack10-m1:management", "rack9-m10:management", "rack9-m2:management"}, "rack1-m1", "rack9-m2"},
		{"compute never chosen", []string{"rack1-m1:kcp", "rack2-m1:kcp-spare", "rack1-c1:compute", "rack2-m2:management"}, "rack1-m1", "rack2-m2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bmms := ledger(tc.bmms...)
			got, err := ChooseNewSpare(bmms, tc.failed)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestChooseNewSpareErrors(t *testing.T) {
	_, err := ChooseNewSpare(ledger("rack1-m1:kcp", "rack2-m1:kcp-spare", "rack2-m2:management!", "rack1-m2:management?"), "rack1-m1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no healthy management server can become the new spare: 2 management servers")

	_, err = ChooseNewSpare(ledger("rack1-m1:kcp", "rack2-m1:kcp-spare"), "rack1-m1")
	assert.ErrorContains(t, err, "0 management servers")

	// The failed KCP, relabelled management, is never its own replacement.
	_, err = ChooseNewSpare(ledger("rack1-m1:management", "rack2-m1:kcp"), "rack1-m1")
	assert.ErrorContains(t, err, "no healthy management server")

	_, err = ChooseNewSpare(ledger("rack1-m1:kcp"), "ghost")
	assert.ErrorContains(t, err, "failed KCP ghost is not a BMM of this cluster")
}

func TestChooseGroup(t *testing.T) {
	bmms := ledger("rack1-m1:management", "rack1-m2:management", "rack2-m1:management")
	bmms[0].ManagementGroup, bmms[1].ManagementGroup, bmms[2].ManagementGroup = GroupA, GroupB, GroupA
	assert.Equal(t, GroupB, ChooseGroup(bmms, "rack2"), "rack2 has only a")
	assert.Equal(t, GroupB, ChooseGroup(bmms, "rack1"), "rack1 is even: the smaller group")
	assert.Equal(t, GroupB, ChooseGroup(bmms, "rack3"))
	assert.Equal(t, GroupA, ChooseGroup(nil, "rack1"))
	// Never more than one apart overall, even if the rack would prefer it.
	skew := ledger("rack1-m1:management", "rack2-m1:management", "rack2-m2:management")
	skew[0].ManagementGroup, skew[1].ManagementGroup, skew[2].ManagementGroup = GroupB, GroupA, GroupA
	assert.Equal(t, GroupB, ChooseGroup(skew, "rack1"))
}
