package model

import "strconv"

// LabSpec is read by `starter lab up` only: simulated timings and faults.
type LabSpec struct {
	Timings LabTimings `json:"timings,omitzero"`
	Faults  []LabFault `json:"faults,omitempty"`
}

// LabTimings are how long the simulated hardware takes; zero means the lab's
// own default.
type LabTimings struct {
	Boot            Duration `json:"boot,omitempty"`
	Reimage         Duration `json:"reimage,omitempty"`
	PowerTransition Duration `json:"powerTransition,omitempty"`
	Drain           Duration `json:"drain,omitempty"`
}

// LabFault injects one kind of failure into one BMM. Rate is the chance per
// attempt; 0 (unset) means every time.
type LabFault struct {
	BMM  string  `json:"bmm"`
	Kind string  `json:"kind"`
	Rate float64 `json:"rate,omitempty"`
}

// FaultKinds are the faults the lab can inject.
var FaultKinds = []string{"reimage-fails", "reimage-hangs", "bmc-5xx", "bmc-timeout", "bmc-unreachable", "power-on-fails", "node-not-ready", "readonly-rootfs", "node-unknown", "pdb-blocks", "slow-drain"}

// IsFaultKind reports whether k is one of FaultKinds.
func IsFaultKind(k string) bool {
	for _, f := range FaultKinds {
		if f == k {
			return true
		}
	}
	return false
}

func (l *LabSpec) validate(e *ValidationError, servers map[string]bool) {
	for _, t := range []struct {
		field string
		v     Duration
	}{
		{"boot", l.Timings.Boot},
		{"reimage", l.Timings.Reimage},
		{"powerTransition", l.Timings.PowerTransition},
		{"drain", l.Timings.Drain},
	} {
		if t.v < 0 {
			e.Add("lab.timings."+t.field, t.v.String(), "must be a positive duration such as 3s")
		}
	}
	for i, f := range l.Faults {
		p := "lab.faults[" + strconv.Itoa(i) + "]"
		if !servers[f.BMM] {
			e.Add(p+".bmm", f.BMM, "unknown BMM: name a server of this inventory")
		}
		if !IsFaultKind(f.Kind) {
			e.Add(p+".kind", f.Kind, "unknown fault kind: allowed values are "+joinComma(FaultKinds))
		}
		if f.Rate < 0 || f.Rate > 1 {
			e.Add(p+".rate", strconv.FormatFloat(f.Rate, 'g', -1, 64), "must be between 0 and 1 (0 or unset: every time)")
		}
	}
}
