package remediate

import (
	"github.com/rackroll/rackroll/internal/model"
)

// UnhealthyControlPlane lists, in natural order, the control-plane BMMs (kcp
// and kcp-spare) that the storm guard counts as unhealthy: marked Unhealthy,
// with a trigger clock running (even one not yet due, e.g. a KCP being
// reimaged), or with a node that is missing or not Ready. A spare that is
// deprovisioned (Available, no node) is idle, not unhealthy. A BMM without an
// observation falls back to the ledger's ready state.
//
// Management servers do not count: they are not etcd members, and
// the storm guard's maxUnhealthy = 1 (docs/behaviour.md#remediation) is about control-plane machines.
func UnhealthyControlPlane(c model.Cluster, obs []Observation, clocks []Clock) []string {
	seen := map[string]Observation{}
	for _, o := range obs {
		if _, dup := seen[o.BMM]; !dup {
			seen[o.BMM] = o
		}
	}
	ticking := map[string]bool{}
	for _, k := range clocks {
		ticking[k.BMM] = true
	}
	var out []string
	for _, b := range c.BMMs {
		role := RoleOf(b)
		if !role.IsControlPlane() {
			continue
		}
		o, observed := seen[b.Name]
		if b.MarkedUnhealthy() || ticking[b.Name] || notReady(b, role, o, observed) {
			out = append(out, b.Name)
		}
	}
	model.SortNatural(out)
	return out
}

func notReady(b model.BMM, role model.Role, o Observation, observed bool) bool {
	if role == model.RoleKCPSpare && (b.DetailedStatus == model.BMMAvailable || (observed && !o.Exists)) {
		return false // an idle spare has no node
	}
	if observed {
		return !o.Exists || o.Ready != model.ReadyTrue
	}
	return b.ReadyState != "" && b.ReadyState != model.ReadyTrue
}
