package remediate

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/assert"
)

var defaults = (*model.RemediationSpec)(nil).WithDefaults() // the operator defaults, as the ledger holds them

// The roles, short, for the tables of this package's tests.
const (
	kcp   = model.RoleKCP
	spare = model.RoleKCPSpare
	mgmt  = model.RoleManagement
	comp  = model.RoleCompute
)

func TestObserveThresholds(t *testing.T) {
	for _, tc := range []struct {
		name string
		obs  Observation
		trig Trigger
		held time.Duration
		due  bool
	}{
		{"read-only compute 9m59s", readOnly("r1-c1", comp), ReadOnlyRootFS, 9*time.Minute + 59*time.Second, false},
		{"read-only compute 10m", readOnly("r1-c1", comp), ReadOnlyRootFS, 10 * time.Minute, true},
		{"read-only management 10m", readOnly("r1-m1", mgmt), ReadOnlyRootFS, 10 * time.Minute, true},
		{"read-only kcp 9m59s", readOnly("r1-m1", kcp), ReadOnlyRootFS, 9*time.Minute + 59*time.Second, false},
		{"read-only kcp 10m", readOnly("r1-m1", kcp), ReadOnlyRootFS, 10 * time.Minute, true},
		{"provisioning compute 5h59m", provisioning("r1-c1", comp), ProvisioningTimeout, 5*time.Hour + 59*time.Minute, false},
		{"provisioning compute 6h", provisioning("r1-c1", comp), ProvisioningTimeout, 6 * time.Hour, true},
		{"provisioning management 6h", provisioning("r1-m1", mgmt), ProvisioningTimeout, 6 * time.Hour, true},
		{"provisioning kcp 5h59m", provisioning("r1-m1", kcp), ProvisioningTimeout, 5*time.Hour + 59*time.Minute, false},
		{"provisioning kcp 6h", provisioning("r1-m1", kcp), ProvisioningTimeout, 6 * time.Hour, true},
		{"unknown kcp 29m59s", unknown("r1-m1", kcp), NodeUnknown, 29*time.Minute + 59*time.Second, false},
		{"unknown kcp 30m", unknown("r1-m1", kcp), NodeUnknown, 30 * time.Minute, true},
		{"unknown spare 30m", unknown("r1-m1", spare), NodeUnknown, 30 * time.Minute, true},
		{"unknown management 29m59s", unknown("r1-m1", mgmt), NodeUnknown, 29*time.Minute + 59*time.Second, false},
		{"unknown management 30m", unknown("r1-m1", mgmt), NodeUnknown, 30 * time.Minute, true},
		{"well past the threshold", readOnly("r1-c1", comp), ReadOnlyRootFS, 48 * time.Hour, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			since := t0.Add(-tc.held)
			next, due := Observe([]Clock{{BMM: tc.obs.BMM, Trigger: tc.trig, Since: since}}, []Observation{tc.obs}, t0, defaults)
			assert.Equal(t, []Clock{{BMM: tc.obs.BMM, Trigger: tc.trig, Since: since}}, next, "the clock keeps its start")
			if !tc.due {
				assert.Empty(t, due)
				return
			}
			assert.Equal(t, []Due{{BMM: tc.obs.BMM, Role: tc.obs.Role, Trigger: tc.trig, Since: since, Held: tc.held}}, due)
		})
	}
}

func TestObserveConditions(t *testing.T) {
	gone := readOnly("r1-m1", model.RoleManagement)
	gone.Exists = false
	rebooting := unknown("r1-m1", model.RoleKCP)
	rebooting.Provisioning, rebooting.ReadOnlyRootFS = true, true
	for _, tc := range []struct {
		name string
		obs  Observation
		want []Trigger // clocks started, in order
	}{
		{"healthy", running("r1-c1", model.RoleCompute), nil},
		{"node Unknown is ignored for compute", unknown("r1-c1", model.RoleCompute), nil},
		{"node False is not Unknown", Observation{BMM: "r1-m1", Role: model.RoleKCP, Ready: model.ReadyFalse, Exists: true}, nil},
		{"no node object: no node conditions", gone, nil},
		{"provisioning: only its own clock", rebooting, []Trigger{ProvisioningTimeout}},
		{"read-only and Unknown both run", func() Observation { o := unknown("r1-m1", model.RoleKCP); o.ReadOnlyRootFS = true; return o }(),
			[]Trigger{ReadOnlyRootFS, NodeUnknown}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next, due := Observe(nil, []Observation{tc.obs}, t0, defaults)
			var got []Trigger
			for _, c := range next {
				assert.Equal(t, t0, c.Since, "a new clock starts now")
				got = append(got, c.Trigger)
			}
			assert.Equal(t, tc.want, got)
			assert.Empty(t, due, "nothing is due the moment it is first seen")
		})
	}
}

// A condition that clears resets its clock; when it comes back it starts
// afresh, so the threshold counts from the recurrence.
func TestObserveClockLifecycle(t *testing.T) {
	ro, ok := readOnly("r1-c1", model.RoleCompute), running("r1-c1", model.RoleCompute)
	var clocks []Clock
	for _, step := range []struct {
		at    time.Duration
		obs   Observation
		since time.Duration // -1: no clock
		due   bool
	}{
		{0, ro, 0, false},
		{9 * time.Minute, ro, 0, false},
		{9*time.Minute + 30*time.Second, ok, -1, false}, // cleared just before the threshold
		{10 * time.Minute, ok, -1, false},
		{12 * time.Minute, ro, 12 * time.Minute, false}, // recurs: a fresh clock
		{21*time.Minute + 59*time.Second, ro, 12 * time.Minute, false},
		{22 * time.Minute, ro, 12 * time.Minute, true},
		{23 * time.Minute, ro, 12 * time.Minute, true}, // stays due until it clears or is remediated
	} {
		var due []Due
		clocks, due = Observe(clocks, []Observation{step.obs}, t0.Add(step.at), defaults)
		if step.since < 0 {
			assert.Empty(t, clocks, "at %s", step.at)
		} else {
			assert.Equal(t, []Clock{{BMM: "r1-c1", Trigger: ReadOnlyRootFS, Since: t0.Add(step.since)}}, clocks, "at %s", step.at)
		}
		assert.Equal(t, step.due, len(due) == 1, "due at %s", step.at)
	}
}

func TestObserveBookkeeping(t *testing.T) {
	lab := (&model.RemediationSpec{ReadOnlyRootFilesystemFor: model.Duration(5 * time.Second), NodeUnknownFor: model.Duration(8 * time.Second)}).WithDefaults()
	both := unknown("rack10-m1", model.RoleManagement)
	both.ReadOnlyRootFS = true
	prev := []Clock{
		{BMM: "rack10-m1", Trigger: NodeUnknown, Since: t0.Add(-time.Minute)},
		{BMM: "rack10-m1", Trigger: ReadOnlyRootFS, Since: t0.Add(-time.Minute)},
		{BMM: "rack2-c1", Trigger: ReadOnlyRootFS, Since: t0.Add(-5 * time.Second)},
		{BMM: "rack3-gone", Trigger: ReadOnlyRootFS, Since: t0.Add(-time.Hour)}, // no longer observed
	}
	obs := []Observation{both, readOnly("rack2-c1", model.RoleCompute), running("rack2-c1", model.RoleCompute)}
	next, due := Observe(prev, obs, t0, lab)
	assert.Equal(t, []Clock{
		{BMM: "rack2-c1", Trigger: ReadOnlyRootFS, Since: t0.Add(-5 * time.Second)},
		{BMM: "rack10-m1", Trigger: ReadOnlyRootFS, Since: t0.Add(-time.Minute)},
		{BMM: "rack10-m1", Trigger: NodeUnknown, Since: t0.Add(-time.Minute)},
	}, next, "natural BMM order, triggers in order; the first observation of a BMM wins; unobserved BMMs drop out")
	assert.Equal(t, []Due{
		{BMM: "rack2-c1", Role: model.RoleCompute, Trigger: ReadOnlyRootFS, Since: t0.Add(-5 * time.Second), Held: 5 * time.Second},
		{BMM: "rack10-m1", Role: model.RoleManagement, Trigger: ReadOnlyRootFS, Since: t0.Add(-time.Minute), Held: time.Minute},
	}, due, "lab thresholds in seconds; one due per BMM")
	assert.Equal(t, "rack2-c1 (compute): readonly-rootfs for 5s", due[0].String())
}
