package model

import (
	"strings"
	"time"
)

// Timeouts are the operator's time limits of the steps that wait for the
// hardware or a node (docs/time-limits.md). A limit bounds the whole step,
// retries included. The ledger resolves them once, when it takes the
// inventory (TimeoutsSpec.Resolve); what it holds is what the workflows
// read. The remediation clocks (reboot, reprovision) stay in
// RemediationSpec.
type Timeouts struct {
	Drain      Duration `json:"drain"`
	VMShutdown Duration `json:"vmShutdown"`
	Cordon     Duration `json:"cordon"`
	PowerOff   Duration `json:"powerOff"`
	Start      Duration `json:"start"`
	Restart    Duration `json:"restart"`
	Reimage    Duration `json:"reimage"`
	Replace    Duration `json:"replace"`
	// The rest bound the waits around those steps (docs/time-limits.md).
	Media           Duration `json:"media"`
	EtcdJoin        Duration `json:"etcdJoin"`
	RemediationWait Duration `json:"remediationWait"`
	ImageCheck      Duration `json:"imageCheck"`
	Call            Duration `json:"call"`
	Firmware        Duration `json:"firmware"`
}

// TimeoutsSpec is the inventory's `timeouts:` section: a field left out
// takes its default; one written must be a positive duration.
type TimeoutsSpec struct {
	Drain      *Duration `json:"drain,omitempty"`
	VMShutdown *Duration `json:"vmShutdown,omitempty"`
	Cordon     *Duration `json:"cordon,omitempty"`
	PowerOff   *Duration `json:"powerOff,omitempty"`
	Start      *Duration `json:"start,omitempty"`
	Restart    *Duration `json:"restart,omitempty"`
	Reimage    *Duration `json:"reimage,omitempty"`
	Replace    *Duration `json:"replace,omitempty"`

	Media           *Duration `json:"media,omitempty"`
	EtcdJoin        *Duration `json:"etcdJoin,omitempty"`
	RemediationWait *Duration `json:"remediationWait,omitempty"`
	ImageCheck      *Duration `json:"imageCheck,omitempty"`
	Call            *Duration `json:"call,omitempty"`
	Firmware        *Duration `json:"firmware,omitempty"`
}

// TimeoutField is one row of the table: its key in the inventory, its
// operator default, and where it lives in the spec and the resolved limits.
type TimeoutField struct {
	Key     string
	Default time.Duration
	spec    func(*TimeoutsSpec) *Duration
	limit   func(*Timeouts) *Duration
}

// TimeoutFields is the one table of time limits and their defaults (the
// operator API's action limits; drain and VM shutdown from the upgrade).
var TimeoutFields = []TimeoutField{
	{"drain", 20 * time.Minute, func(s *TimeoutsSpec) *Duration { return s.Drain }, func(t *Timeouts) *Duration { return &t.Drain }},
	{"vmShutdown", 10 * time.Minute, func(s *TimeoutsSpec) *Duration { return s.VMShutdown }, func(t *Timeouts) *Duration { return &t.VMShutdown }},
	{"cordon", 10 * time.Minute, func(s *TimeoutsSpec) *Duration { return s.Cordon }, func(t *Timeouts) *Duration { return &t.Cordon }},
	{"powerOff", 40 * time.Minute, func(s *TimeoutsSpec) *Duration { return s.PowerOff }, func(t *Timeouts) *Duration { return &t.PowerOff }},
	{"start", 30 * time.Minute, func(s *TimeoutsSpec) *Duration { return s.Start }, func(t *Timeouts) *Duration { return &t.Start }},
	{"restart", 40 * time.Minute, func(s *TimeoutsSpec) *Duration { return s.Restart }, func(t *Timeouts) *Duration { return &t.Restart }},
	{"reimage", 3 * time.Hour, func(s *TimeoutsSpec) *Duration { return s.Reimage }, func(t *Timeouts) *Duration { return &t.Reimage }},
	{"replace", 4 * time.Hour, func(s *TimeoutsSpec) *Duration { return s.Replace }, func(t *Timeouts) *Duration { return &t.Replace }},
	// The waits that are not an action of their own: the installer's eject
	// after a reimage (a clean-up that runs after the reimage's limit), the
	// etcd member's join after a KCP's reimage, an upgrade step's wait for a
	// remediation that holds its server, the image preflight's read of the
	// whole image, and each attempt of a call that answers at once.
	{"media", 10 * time.Minute, func(s *TimeoutsSpec) *Duration { return s.Media }, func(t *Timeouts) *Duration { return &t.Media }},
	{"etcdJoin", 10 * time.Minute, func(s *TimeoutsSpec) *Duration { return s.EtcdJoin }, func(t *Timeouts) *Duration { return &t.EtcdJoin }},
	{"remediationWait", 2 * time.Hour, func(s *TimeoutsSpec) *Duration { return s.RemediationWait }, func(t *Timeouts) *Duration { return &t.RemediationWait }},
	{"imageCheck", 30 * time.Minute, func(s *TimeoutsSpec) *Duration { return s.ImageCheck }, func(t *Timeouts) *Duration { return &t.ImageCheck }},
	{"call", time.Minute, func(s *TimeoutsSpec) *Duration { return s.Call }, func(t *Timeouts) *Duration { return &t.Call }},
	// firmware: one server's components to its runtime's baseline
	// (docs/firmware.md); rackroll's own default, the operator API has none.
	{"firmware", time.Hour, func(s *TimeoutsSpec) *Duration { return s.Firmware }, func(t *Timeouts) *Duration { return &t.Firmware }},
}

// Of returns f's limit in t.
func (f TimeoutField) Of(t Timeouts) time.Duration { return f.limit(&t).Std() }

// DefaultTimeouts are the operator defaults.
func DefaultTimeouts() Timeouts { return (*TimeoutsSpec)(nil).Resolve() }

// Resolve returns the limits s sets, the defaults for the rest; a nil s
// gives all defaults.
func (s *TimeoutsSpec) Resolve() Timeouts {
	var out Timeouts
	for _, f := range TimeoutFields {
		v := Duration(f.Default)
		if s != nil && f.spec(s) != nil {
			v = *f.spec(s)
		}
		*f.limit(&out) = v
	}
	return out
}

// OrDefaults fills the limits a ledger written before the table lacks.
func (t Timeouts) OrDefaults() Timeouts {
	for _, f := range TimeoutFields {
		if d := f.limit(&t); *d <= 0 {
			*d = Duration(f.Default)
		}
	}
	return t
}

// validate refuses zero and negative limits; an unknown key or a value that
// is no duration is refused by the strict parse, with the other problems.
func (s *TimeoutsSpec) validate(e *ValidationError) {
	for _, f := range TimeoutFields {
		if d := f.spec(s); d != nil && *d <= 0 {
			e.Addf("timeouts."+f.Key, d.String(), "must be a positive duration such as %s (leave it out for the default %s)",
				Duration(f.Default/2), Duration(f.Default))
		}
	}
}

// String lists the limits in the table's order: "drain 20m, vmShutdown 10m, …".
func (t Timeouts) String() string {
	parts := make([]string, len(TimeoutFields))
	for i, f := range TimeoutFields {
		parts[i] = f.Key + " " + Duration(f.Of(t)).String()
	}
	return strings.Join(parts, ", ")
}
