package invariants

import (
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
)

// Site is what the event log does not say by itself: the roles at the start
// of the log, the racks, and the outcomes of the operations that ran.
type Site struct {
	// Roles are the BMMs' roles when the log begins. Role changes during the
	// log (spare joining, KCP retiring, failover) are read from node-label
	// events carrying rackroll.io/role, which the ledger writes. A BMM with
	// no known role is left out of the role-based rules.
	Roles map[string]model.Role
	// Racks maps a BMM to its rack, for events that do not carry one.
	Racks map[string]string
	// ActiveKCP is the floor of active KCPs; 0 means the number of kcp
	// roles in Roles, which upgrades and failovers keep (the spare joins
	// before a KCP leaves), or one less on a site without a spare. A log with operator actions on KCPs (a restart:
	// the lease allows one KCP disruption while the set is full) needs the
	// floor one lower.
	ActiveKCP int
	// TargetVersion, when set, makes only reimages to that version (the
	// event's detail.version) count as upgrade steps for the rack and
	// threshold rules, so a remediation reprovision (to the running
	// version) in the same log is not mistaken for one.
	TargetVersion string
	// Units are the upgrade's racks and management groups with their
	// outcomes; empty skips the threshold and pause rules.
	Units []Unit
	// Holds are the batches the capacity guard held for room (empty skips
	// capacity-pause).
	Holds []Hold
	// Remediations are the remediations that ran; empty skips the storm
	// guard and ladder rules.
	Remediations []Remediation
	// EtcdMembership turns on etcd-member-set and etcd-member-stale: the
	// member set equals the active KCPs whenever no operation runs, and no
	// KCP joins over a member nobody removed. SiteFromInventory turns it on
	// (rackroll removes a KCP's member before a wipe and on retire and
	// failover); a log without etcd events (a detached lab) is not held to
	// it. etcd-quorum and control-plane-healthy-first are always on.
	EtcdMembership bool
	// PlacementTable turns on placement-table: at the end of the log the
	// roles are the placement table (docs/behaviour.md#placement) for the rack count (SiteFromInventory
	// turns it on; a log that ends mid-operation is not held to it).
	PlacementTable bool
	// Operations are the windows in which operations ran: etcd-member-set
	// is checked at every event outside them and at the end of the log.
	// Empty: at the end of the log only.
	Operations []Window
}

// Unit is one step of an upgrade that may pause it: a compute rack or a
// management group.
type Unit struct {
	Name      string   `json:"name"`
	Servers   []string `json:"servers"`
	Succeeded int      `json:"succeeded"`
	Required  int      `json:"required"`
	// PauseAfter is set when the strategy pauses after this unit
	// (PauseAfterRack, every rack but the last).
	PauseAfter bool `json:"pauseAfter,omitempty"`
	// Systemic: this is the canary of a systemic failure (every one of its
	// servers failed at the same step), after which the upgrade pauses.
	Systemic bool `json:"systemic,omitempty"`
	// ContinuedAt is when continue-update released the pause; nil when it
	// never came (cancelled, or still paused).
	ContinuedAt *time.Time `json:"continuedAt,omitempty"`
}

// Missed reports whether the unit fell short of its threshold.
func (u Unit) Missed() bool { return u.Succeeded < u.Required }

// Remediation is one remediation as its workflow reports it.
type Remediation struct {
	BMM string `json:"bmm"`
	// Role is the role the remediation started with; "" takes the role the
	// log shows at StartedAt.
	Role       model.Role `json:"role,omitempty"`
	StartedAt  time.Time  `json:"startedAt"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	// Steps are the ladder steps it ran, in order, as recorded.
	Steps []string `json:"steps"`
}

// SiteFromInventory describes a site as registration places it: the roles
// rack-resiliency placement gives (placement.Place), the racks, and the active
// KCP count of the placement.
func SiteFromInventory(inv *model.Inventory) (Site, error) {
	placed, err := placement.Place(inv)
	if err != nil {
		return Site{}, err
	}
	s := Site{Roles: map[string]model.Role{}, Racks: map[string]string{}, EtcdMembership: true, PlacementTable: true}
	for _, a := range placed {
		s.Roles[a.Name], s.Racks[a.Name] = a.Role, a.Rack
	}
	for _, ref := range inv.Servers() {
		s.Racks[ref.Server.Name] = ref.Rack
	}
	return s, nil
}
