package lease

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

// MaxObservationAge is how old a live observation of the control plane may
// be when a disruption is decided on it (the gate) or leased on it (the
// ledger).
const MaxObservationAge = 30 * time.Second

// StaleType is the ApplicationError type of a request refused by Fresh: the
// requester is to observe again and ask again, not give up.
const StaleType = "ObservationStale"

// ControlPlane lists, in natural order, the members of the control plane:
// the active KCPs (role kcp). This is the one definition the lease, the
// upgrade plan, the live gate (internal/cpgate) and the checker share.
//
// The spare is not a member (docs/behaviour.md#placement: two racks run one
// active KCP and a spare; three racks or more, three active plus a
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

// Fresh refuses a request that carries a live observation older than
// MaxObservationAge at now (the ledger's clock). The requester observes and
// runs the gate; the ledger, which cannot do I/O in its validator, checks
// only that what it is shown is recent: a request delayed in retries does
// not lease on a view of the site that has gone stale. A request without
// an observation (not a control-plane disruption, or a workflow recorded
// before the gate) is left to Check.
func Fresh(req Request, now time.Time) error {
	if req.ObservedAt == nil {
		return nil
	}
	if age := now.Sub(*req.ObservedAt); age > MaxObservationAge {
		return fmt.Errorf("bmm %s: the control plane was observed at %s, %s before the lease was asked (limit %s): observe again",
			req.BMM, req.ObservedAt.UTC().Format(time.RFC3339), age.Round(time.Second), MaxObservationAge)
	}
	return nil
}
