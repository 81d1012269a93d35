package remediate

import (
	"fmt"
	"sort"
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

// Trigger is a condition that, held long enough, starts a remediation.
type Trigger string

// Triggers (docs/behaviour.md#remediation). When several are due for one BMM, the first in
// this order is reported.
const (
	ProvisioningTimeout Trigger = "provisioning-timeout" // every role, 6 h
	ReadOnlyRootFS      Trigger = "readonly-rootfs"      // every role, 10 min
	NodeUnknown         Trigger = "node-unknown"         // KCP, spare and management, 30 min
)

// Triggers lists every trigger in reporting order.
var Triggers = []Trigger{ProvisioningTimeout, ReadOnlyRootFS, NodeUnknown}

// Observation is what the monitor saw of one BMM in one round.
type Observation struct {
	BMM  string     `json:"bmm"`
	Role model.Role `json:"role"`
	// Provisioning: detailedStatus is Provisioning, at deployment or during
	// a Replace action.
	Provisioning bool `json:"provisioning,omitempty"`
	// ProvisioningSince is the ledger's start of the BMM's last
	// provisioning (registration, reimage, replace, remediation, failover);
	// zero when none is under way. While it is set and the node is not
	// Ready, the provisioning-timeout clock runs from it.
	ProvisioningSince time.Time `json:"provisioningSince,omitzero"`
	// Marked: the BMM is marked Unhealthy. Its provisioning clock stops:
	// the mark is remediation's last word until a Replace.
	Marked         bool   `json:"marked,omitempty"`
	ReadOnlyRootFS bool   `json:"readOnlyRootFS,omitempty"`
	Ready          string `json:"ready,omitempty"`  // node Ready condition: True, False or Unknown
	Exists         bool   `json:"exists,omitempty"` // the node object is present
}

// Clock records since when a trigger's condition has held on a BMM. The
// monitor keeps the clocks in its state (and across continue-as-new), so a
// worker restart does not reset them.
type Clock struct {
	BMM     string    `json:"bmm"`
	Trigger Trigger   `json:"trigger"`
	Since   time.Time `json:"since"`
}

// Due is a BMM whose trigger has held for at least its threshold.
type Due struct {
	BMM     string        `json:"bmm"`
	Role    model.Role    `json:"role"`
	Trigger Trigger       `json:"trigger"`
	Since   time.Time     `json:"since"`
	Held    time.Duration `json:"held"`
}

func (d Due) String() string {
	return fmt.Sprintf("%s (%s): %s for %s", d.BMM, d.Role, d.Trigger, d.Held)
}

// Threshold is how long t must hold before remediation starts.
func Threshold(t Trigger, cfg model.RemediationSpec) time.Duration {
	switch t {
	case ProvisioningTimeout:
		return time.Duration(cfg.ProvisioningTimeout)
	case ReadOnlyRootFS:
		return time.Duration(cfg.ReadOnlyRootFilesystemFor)
	case NodeUnknown:
		return time.Duration(cfg.NodeUnknownFor)
	}
	return 0
}

// holds lists the triggers whose condition o shows. While a provisioning
// workflow runs (status Provisioning) the node is expected to be missing or
// not Ready, so only the provisioning timeout runs. A provisioning that no
// workflow drives any more (the ledger's start, the node never seen Ready)
// runs the provisioning clock besides the node conditions of a node that
// exists: a node gone Unknown is sick whether or not it was seen Ready.
// The node conditions apply to a running node that exists. Compute nodes
// are exempt from node-unknown (docs/behaviour.md#remediation).
func holds(o Observation) []Trigger {
	if o.Provisioning {
		return []Trigger{ProvisioningTimeout}
	}
	var out []Trigger
	if isProvisioning(o) {
		out = append(out, ProvisioningTimeout)
	}
	if !o.Exists {
		return out
	}
	if o.ReadOnlyRootFS {
		out = append(out, ReadOnlyRootFS)
	}
	if o.Ready == model.ReadyUnknown && o.Role.IsManagementPool() {
		out = append(out, NodeUnknown)
	}
	return out
}

// isProvisioning reports whether o's BMM is provisioning: its status says
// so, or a provisioning started (and was not given up on) and its node has
// not been seen Ready since — a provisioning that failed, or a workflow
// that ended without its node, still counts until the timeout fires.
func isProvisioning(o Observation) bool {
	if o.Provisioning {
		return true
	}
	return !o.ProvisioningSince.IsZero() && !o.Marked && !(o.Exists && o.Ready == model.ReadyTrue)
}

// Observe advances the clocks with this round's observations. The
// provisioning clock counts from the ledger's provisioning start when there
// is one (so a monitor started late, or restarted, still fires on time). A condition
// that holds keeps its clock (or starts one at now); a condition that
// cleared loses its clock, so a later recurrence starts afresh. A BMM with no
// observation loses its clocks too: without evidence nothing is remediated.
// Due lists at most one trigger per BMM, held for at least its threshold
// (exactly at the threshold counts). cfg is the ledger's, defaults applied.
func Observe(prev []Clock, obs []Observation, now time.Time, cfg model.RemediationSpec) (next []Clock, due []Due) {
	since := map[Clock]time.Time{}
	for _, c := range prev {
		since[Clock{BMM: c.BMM, Trigger: c.Trigger}] = c.Since
	}
	sorted := append([]Observation(nil), obs...)
	sort.SliceStable(sorted, func(i, j int) bool { return model.NaturalLess(sorted[i].BMM, sorted[j].BMM) })
	for i, o := range sorted {
		if i > 0 && sorted[i-1].BMM == o.BMM {
			continue // the first observation of a BMM wins
		}
		reported := false
		for _, t := range holds(o) {
			s, ok := since[Clock{BMM: o.BMM, Trigger: t}]
			if !ok {
				s = now
			}
			if t == ProvisioningTimeout && !o.ProvisioningSince.IsZero() {
				s = o.ProvisioningSince // the ledger's start, not when first seen
			}
			next = append(next, Clock{BMM: o.BMM, Trigger: t, Since: s})
			if held := now.Sub(s); !reported && held >= Threshold(t, cfg) {
				due = append(due, Due{BMM: o.BMM, Role: o.Role, Trigger: t, Since: s, Held: held})
				reported = true
			}
		}
	}
	return next, due
}
