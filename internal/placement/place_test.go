package placement

import (
	"fmt"
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// placeCase is a site (modeltest.Inventory's racks) and the placement
// summary it must get.
type placeCase struct {
	name  string
	racks []string
	want  string
}

func placeCases(t *testing.T, cases []placeCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			as, err := Place(modeltest.Inventory(tc.racks...))
			require.NoError(t, err)
			assert.Equal(t, tc.want, summary(as))
		})
	}
}

func TestPlaceTables(t *testing.T) {
	placeCases(t, []placeCase{
		// Single rack: three KCPs in it, no spare.
		{"1 rack", []string{"rack1: m1 m2 m3 c1 c2 c3 c4"},
			"rack1[c1:c c2:c c3:c c4:c m1:kcp m2:kcp m3:kcp]"},
		{"1 rack, 4 management", []string{"rack1: m1 m2 m3 m4 c1"},
			"rack1[c1:c m1:kcp m2:kcp m3:kcp m4:a]"},
		// Two racks: KCP in rack 1, spare in rack 2.
		{"2 racks", modeltest.Uniform(2, "m1 m2 c1"),
			"rack1[c1:c m1:kcp m2:a] rack2[c1:c m1:spare m2:b]"},
		// Three racks: KCP in each, spare in rack 1.
		{"3 racks", modeltest.Uniform(3, "m1 m2 c1"),
			"rack1[c1:c m1:kcp m2:spare] rack2[c1:c m1:kcp m2:a] rack3[c1:c m1:kcp m2:b]"},
		// Four racks: KCPs in racks 1-3, spare in rack 4.
		{"4 racks", modeltest.Uniform(4, "m1 m2 c1"),
			"rack1[c1:c m1:kcp m2:a] rack2[c1:c m1:kcp m2:b] rack3[c1:c m1:kcp m2:a] rack4[c1:c m1:spare m2:b]"},
		{"4 racks like four-rack.yaml", []string{"rack1: m1 m2 m3", "rack2: m1 m2", "rack3: m1 m2", "rack4: m1 m2 m3"},
			"rack1[m1:kcp m2:a m3:b] rack2[m1:kcp m2:b] rack3[m1:kcp m2:a] rack4[m1:spare m2:b m3:a]"},
		{"5 racks", modeltest.Uniform(5, "m1 m2"),
			"rack1[m1:kcp m2:a] rack2[m1:kcp m2:b] rack3[m1:kcp m2:a] rack4[m1:spare m2:b] rack5[m1:a m2:b]"},
	})
}

func TestPlaceFallbacks(t *testing.T) {
	placeCases(t, []placeCase{
		{"2 racks, rack1 all compute", []string{"rack1: c1", "rack2: m1 m2 c1"},
			"rack1[c1:c] rack2[c1:c m1:kcp m2:spare]"},
		{"2 racks, rack2 all compute", []string{"rack1: m1 m2", "rack2: c1"},
			"rack1[m1:kcp m2:spare] rack2[c1:c]"},
		// Only two racks can host KCPs, so two share one; the spare joins the other.
		{"3 racks, rack2 all compute", []string{"rack1: m1 m2", "rack2: c1", "rack3: m1 m2"},
			"rack1[m1:kcp m2:spare] rack2[c1:c] rack3[m1:kcp m2:kcp]"},
		{"3 racks, barely enough", []string{"rack1: m1", "rack2: m1 m2", "rack3: m1"},
			"rack1[m1:kcp] rack2[m1:kcp m2:spare] rack3[m1:kcp]"},
		{"4 racks, rack4 all compute", []string{"rack1: m1 m2", "rack2: m1 m2", "rack3: m1 m2", "rack4: c1"},
			"rack1[m1:kcp m2:spare] rack2[m1:kcp m2:a] rack3[m1:kcp m2:b] rack4[c1:c]"},
		// rack2's KCP moves to the next rack without one: rack4.
		{"4 racks, rack2 all compute", []string{"rack1: m1 m2", "rack2: c1", "rack3: m1 m2", "rack4: m1 m2"},
			"rack1[m1:kcp m2:a] rack2[c1:c] rack3[m1:kcp m2:b] rack4[m1:kcp m2:spare]"},
		{"5 racks, rack1 all compute", []string{"rack1: c1", "rack2: m1 m2", "rack3: m1 m2", "rack4: m1 m2", "rack5: m1 m2"},
			"rack1[c1:c] rack2[m1:kcp m2:a] rack3[m1:kcp m2:b] rack4[m1:kcp m2:a] rack5[m1:spare m2:b]"},
		{"5 racks, rack4 all compute", []string{"rack1: m1", "rack2: m1", "rack3: m1", "rack4: c1", "rack5: m1 m2"},
			"rack1[m1:kcp] rack2[m1:kcp] rack3[m1:kcp] rack4[c1:c] rack5[m1:spare m2:a]"},
		{"empty rack ignored", []string{"rack1: m1 m2", "rack2:", "rack3: m1 m2"},
			"rack1[m1:kcp m2:a] rack3[m1:spare m2:b]"},
	})
}

func TestPlacePins(t *testing.T) {
	placeCases(t, []placeCase{
		{"pinned kcp in its own rack", []string{"rack1: m1 m2", "rack2: m1 k2", "rack3: m1 m2"},
			"rack1[m1:kcp m2:spare] rack2[k2:kcp m1:a] rack3[m1:kcp m2:b]"},
		{"pinned spare elsewhere", []string{"rack1: m1 m2", "rack2: m1 m2", "rack3: s1 m2", "rack4: m1 m2"},
			"rack1[m1:kcp m2:a] rack2[m1:kcp m2:b] rack3[m2:kcp s1:spare] rack4[m1:a m2:b]"},
		{"1 rack pins", []string{"rack1: m1 k2 m3 m4"},
			"rack1[k2:kcp m1:kcp m3:kcp m4:a]"},
		{"all pinned", []string{"rack1: k1 m2", "rack2: k1", "rack3: k1", "rack4: s1 m2"},
			"rack1[k1:kcp m2:a] rack2[k1:kcp] rack3[k1:kcp] rack4[m2:b s1:spare]"},
	})
	as, err := Place(modeltest.Inventory("rack1: m1 m2", "rack2: m1 m2", "rack3: m1 m2", "rack4: k1 m2"))
	require.NoError(t, err)
	assert.Equal(t, "rack1[m1:kcp m2:a] rack2[m1:kcp m2:b] rack3[m1:spare m2:a] rack4[k1:kcp m2:b]", summary(as),
		"a KCP pinned in rack 4 takes rack 3's slot; the spare goes where no KCP is")
}

func TestPlaceNaturalOrder(t *testing.T) {
	as, err := Place(modeltest.Inventory("rack10: m1 m2", "rack9: m10 m2", "rack2: m1", "rack1: c10 c9 m1"))
	require.NoError(t, err)
	assert.Equal(t, "rack1[c9:c c10:c m1:kcp] rack2[m1:kcp] rack9[m2:kcp m10:a] rack10[m1:spare m2:b]", summary(as))
}

func TestPlace16Racks(t *testing.T) {
	as, err := Place(modeltest.Inventory(modeltest.Uniform(16, "m1 m2 m3 c1 c2")...))
	require.NoError(t, err)
	require.Len(t, as, 16*5)
	var kcp, spare []string
	groups := map[string]map[string]bool{"a": {}, "b": {}}
	size := map[string]int{}
	prev := ""
	for _, a := range as {
		if prev != "" {
			assert.True(t, model.NaturalLess(prev, a.Rack) || prev == a.Rack, "%s before %s", prev, a.Rack)
		}
		prev = a.Rack
		switch a.Role {
		case model.RoleKCP:
			kcp = append(kcp, a.Name)
		case model.RoleKCPSpare:
			spare = append(spare, a.Name)
		case model.RoleManagement:
			groups[a.ManagementGroup][a.Rack] = true
			size[a.ManagementGroup]++
		case model.RoleCompute:
			assert.Empty(t, a.ManagementGroup)
		}
	}
	assert.Equal(t, []string{"rack1-m1", "rack2-m1", "rack3-m1"}, kcp)
	assert.Equal(t, []string{"rack4-m1"}, spare)
	assert.Equal(t, map[string]int{"a": 22, "b": 22}, size)
	assert.Len(t, groups["a"], 16, "group a spans every rack")
	assert.Len(t, groups["b"], 16, "group b spans every rack")
	assert.Equal(t, "rack10", as[9*5].Rack, "rack10 comes after rack9")
}

func TestPlaceGroupBalance(t *testing.T) {
	for _, racks := range [][]string{
		modeltest.Uniform(2, "m1 m2 m3"),
		modeltest.Uniform(3, "m1 m2 m3 m4"),
		{"rack1: m1 m2 m3 m4 m5", "rack2: m1", "rack3: m1"},
		{"rack1: m1 m2 m3 m4 m5 m6", "rack2: m1 m2 m3", "rack3: m1", "rack4: m1 m2", "rack5: m1 m2 m3 m4"},
		modeltest.Uniform(7, "m1 m2"),
		modeltest.Uniform(1, "m1 m2 m3 m4 m5 m6"),
	} {
		as, err := Place(modeltest.Inventory(racks...))
		require.NoError(t, err)
		size := map[string]int{}
		perRack := map[string]map[string]int{}
		for _, a := range as {
			if a.Role != model.RoleManagement {
				assert.Empty(t, a.ManagementGroup, a.Name)
				continue
			}
			require.Contains(t, []string{GroupA, GroupB}, a.ManagementGroup)
			size[a.ManagementGroup]++
			if perRack[a.Rack] == nil {
				perRack[a.Rack] = map[string]int{}
			}
			perRack[a.Rack][a.ManagementGroup]++
		}
		assert.LessOrEqual(t, abs(size["a"]-size["b"]), 1, "%v: %s", racks, summary(as))
		for rack, c := range perRack {
			assert.LessOrEqual(t, abs(c["a"]-c["b"]), 1, "%s in %v: %s", rack, racks, summary(as))
		}
	}
}

func TestPlaceErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		racks []string
		msg   string
	}{
		{"1 rack, 2 management", []string{"rack1: m1 m2 c1"}, "placement needs 3 management servers for 1 racks (3 KCP + 0 spare), found 2: add 1"},
		{"2 racks, 1 management", []string{"rack1: m1", "rack2: c1"}, "needs 2 management servers for 2 racks (1 KCP + 1 spare), found 1"},
		{"4 racks, 3 management", []string{"rack1: m1", "rack2: m1", "rack3: m1", "rack4: c1"}, "needs 4 management servers for 4 racks (3 KCP + 1 spare), found 3"},
		{"pins count", []string{"rack1: k1", "rack2: c1", "rack3: c1", "rack4: c1"}, "found 1: add 3"},
		{"too many kcp pins", []string{"rack1: k1 m2", "rack2: k1 m2"}, "2 kcp and 0 kcp-spare pins, but 2 racks have 1 active KCPs and 1 spare"},
		{"spare pin on 1 rack", []string{"rack1: m1 m2 m3 s4"}, "0 kcp and 1 kcp-spare pins"},
		{"unknown role", []string{"rack1: m1 m2 m3 x1"}, `server rack1-x1 has unknown role ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Place(modeltest.Inventory(tc.racks...))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

func TestPlaceEmpty(t *testing.T) {
	as, err := Place(&model.Inventory{})
	require.NoError(t, err)
	assert.Empty(t, as)
}

func TestPlaceExamples(t *testing.T) {
	for file, want := range map[string]string{
		"one-rack.yaml": "rack1[c1:c c2:c c3:c c4:c mgmt1:kcp mgmt2:kcp mgmt3:kcp]",
		"two-rack.yaml": "rack1[c1:c c2:c c3:c c4:c mgmt1:kcp mgmt2:a] rack2[c1:c c2:c c3:c c4:c mgmt1:spare mgmt2:b]",
	} {
		inv, err := model.LoadInventory("../../examples/" + file)
		require.NoError(t, err)
		as, err := Place(inv)
		require.NoError(t, err)
		assert.Equal(t, want, summary(as), file)
	}
	inv, err := model.LoadInventory("../../examples/four-rack.yaml")
	require.NoError(t, err)
	as, err := Place(inv)
	require.NoError(t, err)
	roles := map[string]string{}
	for _, a := range as {
		if a.Role != model.RoleCompute {
			roles[a.Name] = fmt.Sprint(a.Role, a.ManagementGroup)
		}
	}
	assert.Equal(t, map[string]string{
		"rack1-mgmt1": "kcp", "rack1-mgmt2": "managementa", "rack1-mgmt3": "managementb",
		"rack2-mgmt1": "kcp", "rack2-mgmt2": "managementb",
		"rack3-mgmt1": "kcp", "rack3-mgmt2": "managementa",
		"rack4-mgmt1": "kcp-spare", "rack4-mgmt2": "managementb", "rack4-mgmt3": "managementa",
	}, roles)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
