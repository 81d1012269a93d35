package model

import "time"

// RemediationSpec tunes the health monitor. Zero fields take the operator
// defaults; the lab sets them in seconds.
type RemediationSpec struct {
	Interval                  Duration `json:"interval,omitempty"`
	ProvisioningTimeout       Duration `json:"provisioningTimeout,omitempty"`
	ReadOnlyRootFilesystemFor Duration `json:"readOnlyRootFilesystemFor,omitempty"`
	NodeUnknownFor            Duration `json:"nodeUnknownFor,omitempty"`
	RebootTimeout             Duration `json:"rebootTimeout,omitempty"`
	ReprovisionTimeout        Duration `json:"reprovisionTimeout,omitempty"`
	MaxConcurrentCompute      int      `json:"maxConcurrentCompute,omitempty"`
	// DampingWindow: a BMM remediated again within this time of its last
	// ladder step continues its ladder instead of starting it over, so a
	// server that keeps breaking ends marked Unhealthy. The operator rules (docs/behaviour.md#remediation) set
	// no figure; the default is 24 h.
	DampingWindow Duration `json:"dampingWindow,omitempty"`
}

// WithDefaults returns r with unset fields at the operator defaults; a nil r
// gives all defaults. The cluster ledger applies it once, when it takes the
// inventory; the ledger's copy is what everything after it reads.
func (r *RemediationSpec) WithDefaults() RemediationSpec {
	var out RemediationSpec
	if r != nil {
		out = *r
	}
	def := func(d *Duration, v time.Duration) {
		if *d == 0 {
			*d = Duration(v)
		}
	}
	def(&out.Interval, time.Minute)
	def(&out.ProvisioningTimeout, 6*time.Hour)
	def(&out.ReadOnlyRootFilesystemFor, 10*time.Minute)
	def(&out.NodeUnknownFor, 30*time.Minute)
	def(&out.RebootTimeout, 40*time.Minute)
	def(&out.ReprovisionTimeout, 3*time.Hour)
	def(&out.DampingWindow, 24*time.Hour)
	if out.MaxConcurrentCompute == 0 {
		out.MaxConcurrentCompute = 5
	}
	return out
}

// validate refuses negative values; zero means "default".
func (r *RemediationSpec) validate(e *ValidationError) {
	for _, d := range []struct {
		field string
		v     Duration
	}{
		{"interval", r.Interval},
		{"provisioningTimeout", r.ProvisioningTimeout},
		{"readOnlyRootFilesystemFor", r.ReadOnlyRootFilesystemFor},
		{"nodeUnknownFor", r.NodeUnknownFor},
		{"rebootTimeout", r.RebootTimeout},
		{"reprovisionTimeout", r.ReprovisionTimeout},
		{"dampingWindow", r.DampingWindow},
	} {
		if d.v < 0 {
			e.Add("remediation."+d.field, d.v.String(), "must be a positive duration such as 10m (leave it out for the default)")
		}
	}
	if r.MaxConcurrentCompute < 0 {
		e.Addf("remediation.maxConcurrentCompute", itoa(r.MaxConcurrentCompute), "must be 1 or more (leave it out for the default 5)")
	}
}
