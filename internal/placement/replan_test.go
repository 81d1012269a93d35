package placement

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	twoRacks = []string{"rack1-m1:kcp", "rack1-m2:management/a", "rack1-c1:compute",
		"rack2-m1:kcp-spare", "rack2-m2:management/b", "rack2-c1:compute"}
	threeRacks = []string{"rack1-m1:kcp", "rack1-m2:kcp-spare", "rack1-c1:compute",
		"rack2-m1:kcp", "rack2-m2:management/a", "rack2-c1:compute",
		"rack3-m1:kcp", "rack3-m2:management/b", "rack3-c1:compute"}
	fourRacks = []string{"rack1-m1:kcp", "rack1-m2:management/a", "rack2-m1:kcp", "rack2-m2:management/b",
		"rack3-m1:kcp", "rack3-m2:management/a", "rack4-m1:kcp-spare", "rack4-m2:management/b"}
)

// changes writes a plan's changes one per step, "rack2-m2 management>kcp".
func changes(p Replan) string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, fmt.Sprintf("%s %s>%s", c.Name, c.From, c.To))
	}
	return strings.Join(out, ", ")
}

func joins(p Replan) string {
	var out []string
	for _, j := range p.Joins {
		out = append(out, fmt.Sprintf("%s:%s", j.Name, j.Role))
	}
	return strings.Join(out, " ")
}

func TestReplanGrow(t *testing.T) {
	for _, tc := range []struct {
		name        string
		ledger      []string
		racks       []string
		wantJoins   string
		wantChanges string
	}{
		// The spare stays in rack2; the two new KCPs go where there is none.
		{"2 to 3 racks", twoRacks, modeltest.Uniform(3, "m1 m2 c1"),
			"rack3-c1:compute rack3-m1:management rack3-m2:management",
			"rack2-m2 management>kcp, rack3-m1 management>kcp"},
		// The spare leaves rack1's KCP for the new rack; the old one steps down
		// after the new one is in place.
		{"3 to 4 racks", threeRacks, modeltest.Uniform(4, "m1 m2 c1"),
			"rack4-c1:compute rack4-m1:management rack4-m2:management",
			"rack4-m1 management>kcp-spare, rack1-m2 kcp-spare>management"},
		{"a new server whose name sorts first", threeRacks,
			[]string{"rack1: m0 m1 m2 c1", "rack2: m1 m2 c1", "rack3: m1 m2 c1"},
			"rack1-m0:management", ""},
		{"a new compute rack", fourRacks, append(modeltest.Uniform(4, "m1 m2"), "rack5: c1 c2"),
			"rack5-c1:compute rack5-c2:compute", ""},
		// rack1 keeps one KCP; the spare goes to the new rack, the other two
		// KCPs retire after it is in place.
		{"1 to 2 racks", []string{"rack1-m1:kcp", "rack1-m2:kcp", "rack1-m3:kcp", "rack1-m4:management/a"},
			[]string{"rack1: m1 m2 m3 m4", "rack2: m1 m2"},
			"rack2-m1:management rack2-m2:management",
			"rack2-m1 management>kcp-spare, rack1-m2 kcp>management, rack1-m3 kcp>management"},
		{"2 to 3 racks, the new rack has no management server", twoRacks,
			[]string{"rack1: m1 m2 m3 c1", "rack2: m1 m2 c1", "rack3: c1"},
			"rack1-m3:management rack3-c1:compute",
			"rack1-m2 management>kcp, rack2-m2 management>kcp"},
		{"an unhealthy management server is not picked", modeltest.Replace(twoRacks, "rack2-m2:management/b", "rack2-m2:management/b!"),
			[]string{"rack1: m1 m2 c1", "rack2: m1 m2 m3 c1", "rack3: m1 c1"},
			"rack2-m3:management rack3-c1:compute rack3-m1:management",
			"rack2-m3 management>kcp, rack3-m1 management>kcp"},
		{"the spare becomes a KCP when its rack has nothing else", twoRacks,
			[]string{"rack1: m1 m2 m3 c1", "rack2: m1 c1", "rack3: m1 c1"},
			"rack1-m3:management rack3-c1:compute rack3-m1:management",
			"rack3-m1 management>kcp, rack2-m1 kcp-spare>kcp, rack1-m2 management>kcp-spare"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := plan(t, tc.ledger, tc.racks)
			require.NoError(t, p.Err())
			assert.Equal(t, tc.wantJoins, joins(p))
			assert.Equal(t, tc.wantChanges, changes(p))
			assertAtRest(t, tc.ledger, tc.racks, p)
		})
	}
}

func TestReplanRepairsMixedPlacements(t *testing.T) {
	for _, tc := range []struct {
		name, wantChanges string
		ledger            []string
		racks             []string
	}{
		// What the old merge left: the two-rack control plane on three racks.
		{"2-rack roles on 3 racks", "rack2-m2 management>kcp, rack3-m1 management>kcp",
			append(twoRacks[:len(twoRacks):len(twoRacks)], "rack3-m1:management/a", "rack3-m2:management/b", "rack3-c1:compute"),
			modeltest.Uniform(3, "m1 m2 c1")},
		{"two spares on 4 racks", "rack1-m2 kcp-spare>management",
			append(threeRacks[:len(threeRacks):len(threeRacks)], "rack4-m1:kcp-spare", "rack4-m2:management/a", "rack4-c1:compute"),
			modeltest.Uniform(4, "m1 m2 c1")},
		{"a fourth KCP: the first in natural order stays, as Place has it", "rack1-m1 kcp>management",
			append([]string{"rack1-m0:kcp"}, threeRacks...),
			[]string{"rack1: m0 m1 m2 c1", "rack2: m1 m2 c1", "rack3: m1 m2 c1"}},
		{"at rest: nothing to change", "", fourRacks, modeltest.Uniform(4, "m1 m2")},
		// A marked KCP stays: its failover is remediation's, not a re-placement.
		{"a marked KCP is kept", "", modeltest.Replace(fourRacks, "rack2-m1:kcp", "rack2-m1:kcp!"), modeltest.Uniform(4, "m1 m2")},
		{"a marked spare is replaced in its rack", "rack4-m2 management>kcp-spare, rack4-m1 kcp-spare>management",
			modeltest.Replace(fourRacks, "rack4-m1:kcp-spare", "rack4-m1:kcp-spare!"), modeltest.Uniform(4, "m1 m2")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := plan(t, tc.ledger, tc.racks)
			require.NoError(t, p.Err())
			assert.Equal(t, tc.wantChanges, changes(p))
			assert.Empty(t, p.Joins)
		})
	}
}

func TestReplanShrink(t *testing.T) {
	// Removing a compute server changes no role.
	p := plan(t, twoRacks, []string{"rack1: m1 m2 c1", "rack2: m1 m2"})
	require.NoError(t, p.Err())
	assert.Equal(t, []Leave{{Name: "rack2-c1", Rack: "rack2", Role: model.RoleCompute}}, p.Leaves)
	assert.Empty(t, p.Changes)
	assert.True(t, p.ServersChanged())

	// Removing the spare's rack from four racks: a management server of the
	// three left becomes the spare (the KCPs fill every rack: rack1 first).
	p = plan(t, fourRacks, modeltest.Uniform(3, "m1 m2"))
	require.NoError(t, p.Err())
	assert.Equal(t, "rack1-m2 management>kcp-spare", changes(p))
	assert.Len(t, p.Leaves, 2)
}

func TestReplanRefusals(t *testing.T) {
	for _, tc := range []struct {
		name                string
		ledger, racks, want []string
	}{
		{"removing the spare's rack with no replacement",
			[]string{"rack1-m1:kcp", "rack2-m1:kcp", "rack3-m1:kcp", "rack4-m1:kcp-spare", "rack1-c1:compute"},
			[]string{"rack1: m1 c1", "rack2: m1", "rack3: m1"},
			[]string{"3 racks need a spare KCP: no healthy management server outside the active KCPs can become it (the inventory drops the spare rack4-m1 of rack rack4)"}},
		{"removing the two-rack spare's rack", twoRacks, []string{"rack1: m1 m2 c1"},
			[]string{"1 racks need 3 active KCPs, only 2 can be placed", "(the inventory drops the spare rack2-m1 of rack rack2)"}},
		{"removing an active KCP", fourRacks, []string{"rack1: m1 m2", "rack2: m2", "rack3: m1 m2", "rack4: m1 m2"},
			[]string{"rack2-m1 in rack rack2 is an active KCP (an etcd member) and would leave the inventory"}},
		{"the only candidate is marked", modeltest.Replace(twoRacks, "rack2-m2:management/b", "rack2-m2:management/b!"),
			[]string{"rack1: m1 m2 c1", "rack2: m1 m2 c1", "rack3: c1"},
			[]string{"3 racks need a spare KCP: no healthy management server"}},
		{"too many pins", twoRacks, []string{"rack1: m1 k2", "rack2: m1 k2"},
			[]string{"2 kcp and 0 kcp-spare pins, but 2 racks have 1 active KCPs and 1 spare"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := plan(t, tc.ledger, tc.racks)
			require.Error(t, p.Err())
			for _, w := range tc.want {
				assert.Contains(t, p.Err().Error(), w)
			}
			assert.Empty(t, p.Changes, "a refused plan changes nothing")
		})
	}
}

func TestReplanFreshLedgerIsPlace(t *testing.T) {
	inv := modeltest.Inventory(modeltest.Uniform(4, "m1 m2 c1")...)
	p, err := PlanRegistration(nil, inv)
	require.NoError(t, err)
	placed, err := Place(inv)
	require.NoError(t, err)
	assert.Equal(t, placed, p.Joins)
	assert.Empty(t, p.Changes)
	j, ok := p.JoinRole("rack4-m1")
	assert.True(t, ok)
	assert.Equal(t, model.RoleKCPSpare, j.Role)

	_, err = PlanRegistration(nil, modeltest.Inventory("rack1: m1 x1"))
	assert.ErrorContains(t, err, "unknown role")
}

func plan(t *testing.T, ledger, racks []string) Replan {
	t.Helper()
	p, err := PlanRegistration(modeltest.Cluster(ledger...).BMMs, modeltest.Inventory(racks...))
	require.NoError(t, err)
	return p
}

// assertAtRest applies p to the ledger and checks the outcome: the table's
// counts, KCPs in different racks, the spare outside them, and a second
// plan with nothing left to do.
func assertAtRest(t *testing.T, ledger, racks []string, p Replan) {
	t.Helper()
	bmms := modeltest.Cluster(ledger...).BMMs
	var after []model.BMM
	inv := modeltest.Inventory(racks...)
	for _, ref := range inv.Servers() {
		b, ok := (&model.Cluster{BMMs: bmms}).BMM(ref.Server.Name)
		if !ok {
			j, _ := p.JoinRole(ref.Server.Name)
			nb := modeltest.Cluster(ref.Server.Name + ":" + string(j.Role)).BMMs[0]
			nb.ManagementGroup = j.ManagementGroup
			b = &nb
		}
		after = append(after, *b)
	}
	for _, c := range p.Changes {
		b, _ := (&model.Cluster{BMMs: after}).BMM(c.Name)
		require.Equal(t, c.From, b.Roles[0], "%s changes from the role it has", c.Name)
		b.Roles, b.ManagementGroup = []model.Role{c.To}, c.ManagementGroup
	}
	kcpRacks, spares := map[string]int{}, 0
	for _, b := range after {
		switch b.Roles[0] {
		case model.RoleKCP:
			kcpRacks[b.Rack]++
		case model.RoleKCPSpare:
			spares++
		}
	}
	// KCPs share a rack only when too few racks have management servers.
	pool := map[string]bool{}
	for _, ref := range inv.Servers() {
		if ref.Server.Role.IsManagementPool() {
			pool[ref.Rack] = true
		}
	}
	kcps := 0
	for r, n := range kcpRacks {
		kcps += n
		assert.True(t, n == 1 || len(pool) < p.Active, "rack %s has %d KCPs", r, n)
	}
	assert.Equal(t, p.Active, kcps)
	assert.Equal(t, p.Spare, spares)
	again, err := PlanRegistration(after, inv)
	require.NoError(t, err)
	assert.Empty(t, again.Changes, "the plan's outcome is at rest")
	assert.False(t, again.ServersChanged())
}

// A registration that adds and removes nothing is never refused, even when
// the plan cannot reach the table: the operator keeps the ledger.
func TestReplanRegistrationErr(t *testing.T) {
	ledger := []string{"rack1-m1:kcp", "rack2-m1:kcp-spare!", "rack2-c1:compute"}
	p := plan(t, ledger, []string{"rack1: m1", "rack2: m1 c1"})
	require.Error(t, p.Err())
	assert.NoError(t, p.RegistrationErr())

	p = plan(t, ledger, []string{"rack1: m1", "rack2: m1"})
	assert.ErrorContains(t, p.RegistrationErr(), "2 racks need a spare KCP")
}

// The re-placement workflow plans from the ledger alone: after a
// registration grew two racks to three (rack3 joined as management), the
// same changes as the registration's plan; compute never enters the pool.
func TestPlanRoles(t *testing.T) {
	grown := append(twoRacks[:len(twoRacks):len(twoRacks)], "rack3-m1:management/a", "rack3-m2:management/b", "rack3-c1:compute")
	p, err := PlanRoles(modeltest.Cluster(grown...).BMMs)
	require.NoError(t, err)
	require.NoError(t, p.Err())
	assert.Equal(t, "rack2-m2 management>kcp, rack3-m1 management>kcp", changes(p))
	assert.False(t, p.ServersChanged())

	p, err = PlanRoles(modeltest.Cluster("rack1-m1:kcp", "rack1-c1:compute", "rack2-c1:compute").BMMs)
	require.NoError(t, err)
	assert.ErrorContains(t, p.Err(), "2 racks need a spare KCP")

	p, err = PlanRoles(nil)
	require.NoError(t, err)
	assert.Empty(t, p.Changes)
}
