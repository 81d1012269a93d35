package remediate

import (
	"testing"

	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
	"github.com/stretchr/testify/assert"
)

// site is three racks: three KCPs, the spare, management and compute.
var site = []string{
	"rack1-m1:kcp", "rack1-m2:kcp-spare", "rack1-m3:management/a", "rack1-c1:compute", "rack1-c2:compute",
	"rack2-m1:kcp", "rack2-m2:management/b", "rack2-c1:compute", "rack2-c2:compute",
	"rack3-m1:kcp", "rack3-m2:management/a", "rack3-c1:compute", "rack3-c2:compute",
}

func due(bmm string, role model.Role) Due {
	return Due{BMM: bmm, Role: role, Trigger: ReadOnlyRootFS, Since: t0, Held: 0}
}

func TestAdmit(t *testing.T) {
	marked := modeltest.Cluster(append([]string{"rack4-c1:compute!"}, site...)...)
	kcpLease := lease.Lease{BMM: "rack2-m1", Holder: "upgrade:site-a:rack2-m1", Operation: "upgrade", Disruptive: true, ControlPl: true}
	computeLease := lease.Lease{BMM: "rack1-c1", Holder: "action:site-a:rack1-c1:3", Operation: "reimage", Disruptive: true}
	threeCompute := []Active{{"rack2-c1", model.RoleCompute}, {"rack2-c2", model.RoleCompute}, {"rack3-c1", model.RoleCompute}}
	for _, tc := range []struct {
		name      string
		c         model.Cluster
		due       Due
		active    []Active
		leases    []lease.Lease
		unhealthy []string
		max       int
		start     bool
		reason    string
	}{
		{name: "compute starts", due: due("rack1-c1", model.RoleCompute), max: 5, start: true,
			reason: "rack1-c1 (compute): readonly-rootfs for 0s: starting remediation"},
		{name: "unknown BMM", due: due("ghost", model.RoleCompute), max: 5,
			reason: "bmm ghost is not in cluster site-a"},
		{name: "already marked Unhealthy waits for Replace", c: marked, due: due("rack4-c1", model.RoleCompute), max: 5,
			reason: "bmm rack4-c1 is already marked Unhealthy: remediation gave up on it; a BMM Replace action returns it to service"},
		{name: "already being remediated", due: due("rack1-c1", model.RoleCompute), max: 5,
			active: []Active{{"rack1-c1", model.RoleCompute}}, reason: "bmm rack1-c1 is already being remediated"},
		{name: "leased by someone else", due: due("rack1-c1", model.RoleCompute), max: 5, leases: []lease.Lease{computeLease},
			reason: "bmm rack1-c1 is held by action:site-a:rack1-c1:3 (reimage): remediation waits until it is released"},
		{name: "compute cap reached", due: due("rack1-c1", model.RoleCompute), max: 3, active: threeCompute,
			reason: "compute remediations in flight: 3 of maxConcurrentCompute 3; rack1-c1 waits"},
		{name: "compute below cap", due: due("rack1-c1", model.RoleCompute), max: 4, active: threeCompute, start: true},
		{name: "cap below 1 counts as 1", due: due("rack1-c1", model.RoleCompute), max: 0,
			active: threeCompute[:1], reason: "compute remediations in flight: 1 of maxConcurrentCompute 1"},
		{name: "compute ignores the control-plane storm", due: due("rack1-c1", model.RoleCompute), max: 5,
			unhealthy: []string{"rack1-m1", "rack2-m1"}, start: true},
		{name: "management ignores the control-plane storm", due: due("rack1-m3", model.RoleManagement), max: 5,
			unhealthy: []string{"rack1-m1", "rack2-m1"}, active: threeCompute, start: true},
		{name: "one unhealthy KCP is remediated", due: due("rack1-m1", model.RoleKCP), max: 5,
			unhealthy: []string{"rack1-m1"}, active: threeCompute, start: true},
		{name: "two unhealthy control-plane nodes stop KCP remediation", due: due("rack1-m1", model.RoleKCP), max: 5,
			unhealthy: []string{"rack1-m1", "rack2-m1"},
			reason:    "2 control-plane nodes are unhealthy (rack1-m1, rack2-m1): etcd may be degraded or a replacement may be in progress, so rack1-m1 (kcp) is not remediated automatically; an operator must act"},
		{name: "the spare counts and is guarded", due: due("rack1-m2", model.RoleKCPSpare), max: 5,
			unhealthy: []string{"rack1-m1", "rack1-m2"}, reason: "2 control-plane nodes are unhealthy (rack1-m1, rack1-m2)"},
		{name: "one control-plane remediation at a time", due: due("rack3-m1", model.RoleKCP), max: 5,
			unhealthy: []string{"rack3-m1"}, active: []Active{{"rack1-m2", model.RoleKCPSpare}},
			reason: "control-plane bmm rack1-m2 is already being remediated: one control-plane remediation at a time keeps etcd quorum; rack3-m1 waits"},
		{name: "another KCP under a disruptive lease", due: due("rack3-m1", model.RoleKCP), max: 5,
			unhealthy: []string{"rack3-m1"}, leases: []lease.Lease{kcpLease},
			reason: "KCP server rack2-m1 is being disrupted by upgrade:site-a:rack2-m1 (upgrade): remediating rack3-m1 too could lose etcd quorum"},
		{name: "a compute lease does not block a KCP", due: due("rack3-m1", model.RoleKCP), max: 5,
			unhealthy: []string{"rack3-m1"}, leases: []lease.Lease{computeLease}, start: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			if c.Name == "" {
				c = modeltest.Cluster(site...)
			}
			got := Admit(tc.due, Situation{Cluster: c, Active: tc.active, Leases: tc.leases,
				UnhealthyControlPlane: tc.unhealthy, MaxConcurrentCompute: tc.max})
			assert.Equal(t, tc.start, got.Start, got.Reason)
			assert.Contains(t, got.Reason, tc.reason)
		})
	}
}

// In a storm, the control plane waits for an operator while compute
// remediation proceeds up to its cap, counting the ones started this round.
func TestAdmitAllStorm(t *testing.T) {
	c := modeltest.Cluster(site...)
	dues := []Due{due("rack1-c1", model.RoleCompute), due("rack1-m1", model.RoleKCP), due("rack1-c2", model.RoleCompute),
		due("rack2-m1", model.RoleKCP), due("rack2-c1", model.RoleCompute)}
	got := AdmitAll(dues, Situation{Cluster: c, UnhealthyControlPlane: []string{"rack1-m1", "rack2-m1"}, MaxConcurrentCompute: 2})
	var started []string
	for _, v := range got {
		if v.Decision.Start {
			started = append(started, v.Due.BMM)
		}
	}
	assert.Equal(t, []string{"rack1-c1", "rack1-c2"}, started)
	assert.Contains(t, got[1].Decision.Reason, "an operator must act")
	assert.Contains(t, got[3].Decision.Reason, "an operator must act")
	assert.Contains(t, got[4].Decision.Reason, "compute remediations in flight: 2 of maxConcurrentCompute 2")
}

// Two KCPs due in one round: the first starts, the second waits for it.
func TestAdmitAllOneKCPAtATime(t *testing.T) {
	got := AdmitAll([]Due{due("rack1-m1", model.RoleKCP), due("rack2-m1", model.RoleKCP)},
		Situation{Cluster: modeltest.Cluster(site...), UnhealthyControlPlane: []string{"rack1-m1"}, MaxConcurrentCompute: 5})
	assert.True(t, got[0].Decision.Start)
	assert.False(t, got[1].Decision.Start)
	assert.Contains(t, got[1].Decision.Reason, "control-plane bmm rack1-m1 is already being remediated")
}

func TestUnhealthyControlPlane(t *testing.T) {
	for _, tc := range []struct {
		name   string
		c      []string
		obs    []Observation
		clocks []Clock
		want   []string
	}{
		{name: "all well", c: site, obs: []Observation{running("rack1-m1", model.RoleKCP)}},
		{name: "ledger not Ready, unobserved", c: modeltest.Replace(site, "rack2-m1:kcp", "rack2-m1:kcp?"), want: []string{"rack2-m1"}},
		{name: "observed Unknown beats the ledger", c: site, obs: []Observation{unknown("rack3-m1", model.RoleKCP)}, want: []string{"rack3-m1"}},
		{name: "observed Ready beats the ledger", c: modeltest.Replace(site, "rack2-m1:kcp", "rack2-m1:kcp?"), obs: []Observation{running("rack2-m1", model.RoleKCP)}},
		{name: "a KCP without a node", c: site, obs: []Observation{{BMM: "rack1-m1", Role: model.RoleKCP}}, want: []string{"rack1-m1"}},
		{name: "marked Unhealthy", c: modeltest.Replace(site, "rack1-m2:kcp-spare", "rack1-m2:kcp-spare!"), want: []string{"rack1-m2"}},
		{name: "a clock running, not yet due", c: site, obs: []Observation{running("rack3-m1", model.RoleKCP)},
			clocks: []Clock{{BMM: "rack3-m1", Trigger: ReadOnlyRootFS, Since: t0}}, want: []string{"rack3-m1"}},
		{name: "an idle spare is not unhealthy", c: modeltest.Replace(site, "rack1-m2:kcp-spare", "rack1-m2:kcp-spare~"),
			obs: []Observation{{BMM: "rack1-m2", Role: model.RoleKCPSpare}}},
		{name: "management never counts", c: modeltest.Replace(site, "rack2-m2:management/b", "rack2-m2:management/b!"),
			obs: []Observation{unknown("rack1-m3", model.RoleManagement)}},
		{name: "natural order", c: []string{"rack10-m1:kcp?", "rack9-m1:kcp!", "rack2-m1:kcp"}, want: []string{"rack9-m1", "rack10-m1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, UnhealthyControlPlane(modeltest.Cluster(tc.c...), tc.obs, tc.clocks))
		})
	}
}
