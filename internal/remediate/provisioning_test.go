package remediate

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/assert"
)

// The provisioning clock counts from the ledger's start, whoever looks and
// whenever: the node must come Ready within provisioningTimeout of it.
func TestObserveProvisioningSince(t *testing.T) {
	six := 6 * time.Hour
	stamped := func(o Observation, ago time.Duration) Observation {
		o.ProvisioningSince = t0.Add(-ago)
		return o
	}
	noNode := Observation{BMM: "r1-c1", Role: model.RoleCompute}
	notReady := Observation{BMM: "r1-c1", Role: model.RoleCompute, Exists: true, Ready: model.ReadyFalse}
	marked := stamped(noNode, 7*time.Hour)
	marked.Marked = true
	for _, tc := range []struct {
		name  string
		obs   Observation
		prev  []Clock
		clock bool
		since time.Time
		due   bool
	}{
		{"no node, just registered", stamped(noNode, 0), nil, true, t0, false},
		{"no node 5h59m after the start", stamped(noNode, six-time.Minute), nil, true, t0.Add(-six + time.Minute), false},
		{"no node 6h after the start, first seen now", stamped(noNode, six), nil, true, t0.Add(-six), true},
		{"node NotReady 7h after a failed reimage", stamped(notReady, 7*time.Hour), nil, true, t0.Add(-7 * time.Hour), true},
		{"the ledger's start beats a clock kept since later", stamped(noNode, six),
			[]Clock{{BMM: "r1-c1", Trigger: ProvisioningTimeout, Since: t0.Add(-time.Minute)}}, true, t0.Add(-six), true},
		{"node Ready: provisioning is over", stamped(running("r1-c1", model.RoleCompute), 7*time.Hour), nil, false, time.Time{}, false},
		{"node Ready but read-only: its own trigger", stamped(readOnly("r1-c1", model.RoleCompute), 7*time.Hour), nil, false, time.Time{}, false},
		{"marked Unhealthy: remediation gave up already", marked, nil, false, time.Time{}, false},
		{"no start and no node: nothing", noNode, nil, false, time.Time{}, false},
		{"a compute Unknown before it was seen Ready: the provisioning clock runs", stamped(unknown("r1-c1", model.RoleCompute), time.Hour), nil, true, t0.Add(-time.Hour), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next, due := Observe(tc.prev, []Observation{tc.obs}, t0, defaults)
			var clock *Clock
			for i := range next {
				if next[i].Trigger == ProvisioningTimeout {
					clock = &next[i]
				}
			}
			if !tc.clock {
				assert.Nil(t, clock)
				assert.Empty(t, due)
				return
			}
			if assert.NotNil(t, clock) {
				assert.Equal(t, tc.since, clock.Since)
			}
			assert.Equal(t, tc.due, len(due) == 1)
			if tc.due {
				assert.Equal(t, Due{BMM: "r1-c1", Role: model.RoleCompute, Trigger: ProvisioningTimeout, Since: tc.since, Held: t0.Sub(tc.since)}, due[0])
			}
		})
	}
}

func TestProvisioningOver(t *testing.T) {
	since := t0.Add(-time.Hour)
	c := model.Cluster{Name: "site-a", BMMs: []model.BMM{
		{Name: "rack10-c1", ProvisioningSince: &since, DetailedStatus: model.BMMProvisioned},
		{Name: "rack2-c1", ProvisioningSince: &since, DetailedStatus: model.BMMError},
		{Name: "rack2-c2", ProvisioningSince: &since, DetailedStatus: model.BMMProvisioning},
		{Name: "rack2-c3", ProvisioningSince: &since, DetailedStatus: model.BMMDeprovisioning},
		{Name: "rack2-c4", ProvisioningSince: &since, DetailedStatus: model.BMMProvisioned},
		{Name: "rack2-c5", ProvisioningSince: &since, DetailedStatus: model.BMMProvisioned},
		{Name: "rack2-c6", DetailedStatus: model.BMMProvisioned},
		{Name: "rack2-c7", ProvisioningSince: &since, DetailedStatus: model.BMMProvisioned},
	}}
	obs := []Observation{
		running("rack10-c1", model.RoleCompute),
		running("rack2-c1", model.RoleCompute), // a failed reimage whose node came back after all
		running("rack2-c2", model.RoleCompute), // its workflow records the end
		running("rack2-c3", model.RoleCompute),
		{BMM: "rack2-c4", Role: model.RoleCompute, Exists: true, Ready: model.ReadyFalse},
		{BMM: "rack2-c5", Role: model.RoleCompute},
		running("rack2-c6", model.RoleCompute), // no clock to clear
		// rack2-c7 unobserved: no evidence
	}
	assert.Equal(t, []string{"rack2-c1", "rack10-c1"}, ProvisioningOver(c, obs))
}

// A node that exists and went Unknown is sick even if the monitor never
// saw it Ready since registration: its node-unknown clock runs beside the
// provisioning clock, and whichever is due first is reported.
func TestObserveProvisioningAndNodeConditions(t *testing.T) {
	o := unknown("r1-m1", model.RoleKCP)
	o.ProvisioningSince = t0.Add(-time.Hour)
	prev := []Clock{{BMM: "r1-m1", Trigger: NodeUnknown, Since: t0.Add(-30 * time.Minute)}}
	next, due := Observe(prev, []Observation{o}, t0, defaults)
	assert.Equal(t, []Clock{
		{BMM: "r1-m1", Trigger: ProvisioningTimeout, Since: t0.Add(-time.Hour)},
		{BMM: "r1-m1", Trigger: NodeUnknown, Since: t0.Add(-30 * time.Minute)},
	}, next)
	assert.Equal(t, []Due{{BMM: "r1-m1", Role: model.RoleKCP, Trigger: NodeUnknown, Since: t0.Add(-30 * time.Minute), Held: 30 * time.Minute}}, due)

	// A reimage in flight (status Provisioning) keeps only its own clock.
	o.Provisioning = true
	next, _ = Observe(prev, []Observation{o}, t0, defaults)
	assert.Equal(t, []Clock{{BMM: "r1-m1", Trigger: ProvisioningTimeout, Since: t0.Add(-time.Hour)}}, next)
}
