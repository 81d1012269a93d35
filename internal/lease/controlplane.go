package lease

import "github.com/rackroll/rackroll/internal/model"

// ControlPlane lists, in natural order, the members of the control plane:
// the active KCPs (role kcp). This is the one definition the lease, the
// upgrade plan, the live gate (internal/cpgate) and the checker share.
//
// The spare is not a member (reference 000: "one active Kubernetes Control
// Plane (KCP) node and one spare node" on two racks; three active plus a
// spare on three or more): it runs no etcd member and serves no API, so it
// counts neither toward the set being full nor toward quorum. It matters
// only while it is being promoted, when the gate checks it as the member
// it is about to become.
func ControlPlane(c model.Cluster) []string {
	var out []string
	for _, b := range c.BMMs {
		if b.HasRole(model.RoleKCP) {
			out = append(out, b.Name)
		}
	}
	model.SortNatural(out)
	return out
}
