// Package lease decides whether a disruption lease may be granted on a BMM.
// The cluster ledger calls Check from its Update validator, so a refusal is
// synchronous, carries the reason, and never reaches history.
//
// The rule (docs/behaviour.md#control-plane): a disruptive action on a KCP server is rejected
// while another disruptive action is in progress on any KCP server, or while
// the KCP set is not full. A server already leased is never leased twice.
package lease

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

// Lease is one granted claim on a BMM.
type Lease struct {
	BMM        string    `json:"bmm"`
	Holder     string    `json:"holder"` // workflow id of the holder
	Operation  Operation `json:"operation"`
	Disruptive bool      `json:"disruptive"`   // Operation.Disruptive() when granted
	ControlPl  bool      `json:"controlPlane"` // the BMM was a KCP when leased
	Since      time.Time `json:"since"`
}

// Request asks for a lease.
type Request struct {
	BMM       string    `json:"bmm"`
	Holder    string    `json:"holder"`
	Operation Operation `json:"operation"`
	// AllowWhileUpdating lets the runtime upgrade's own children lease
	// while the cluster is Updating; everyone else needs Running.
	AllowWhileUpdating bool `json:"allowWhileUpdating,omitempty"`
	// AllowDegraded lets remediation act on a cluster that is not Running.
	AllowDegraded bool `json:"allowDegraded,omitempty"`
	// Force is the operator's break-glass (--force): a user action on a
	// Degraded or Failed cluster, with Reason saying why and By who. It
	// lifts only the cluster-status condition: the KCP rules below and the
	// live gate the requester runs (internal/cpgate) still apply.
	Force  bool   `json:"force,omitempty"`
	Reason string `json:"reason,omitempty"`
	By     string `json:"by,omitempty"`
	// ObservedAt is when the requester observed the control plane for the
	// live gate (internal/cpgate) before asking; see Fresh.
	ObservedAt *time.Time `json:"observedAt,omitempty"`
}

// Check returns nil when req may be granted against the cluster and the
// leases already held, or an error saying why not. A holder asking again for
// a lease it already holds is granted (retries after a crash are safe).
func Check(c model.Cluster, held []Lease, req Request) error {
	if req.BMM == "" || req.Holder == "" || req.Operation == "" {
		return fmt.Errorf("lease request needs bmm, holder and operation (got bmm=%q holder=%q operation=%q)", req.BMM, req.Holder, req.Operation)
	}
	b, ok := c.BMM(req.BMM)
	if !ok {
		return fmt.Errorf("bmm %q is not in cluster %s: known BMMs are %s", req.BMM, c.Name, strings.Join(names(c), ", "))
	}
	for _, l := range held {
		if l.BMM == req.BMM {
			if l.Holder == req.Holder {
				return nil
			}
			return fmt.Errorf("bmm %s is busy: %s (%s) holds it since %s", req.BMM, l.Holder, l.Operation, l.Since.UTC().Format(time.RFC3339))
		}
	}
	if err := CheckReason(req.Force, req.Reason); err != nil {
		return err
	}
	switch c.DetailedStatus {
	case model.ClusterRunning, "":
	case model.ClusterUpdating, model.ClusterUpdatePaused:
		// --force does not reach here: the upgrade is running and leases
		// servers itself; cancelling it is the way out.
		if !req.AllowWhileUpdating && !req.AllowDegraded {
			return fmt.Errorf("cluster %s is %s: actions need the cluster Running (wait for the upgrade, or cancel it)", c.Name, c.DetailedStatus)
		}
	default:
		if !req.AllowDegraded && !req.Force {
			return fmt.Errorf("cluster %s is %s, not Running: %s (to act anyway: --force --reason TEXT; to return it to Running: starter cluster resume)",
				c.Name, c.DetailedStatus, c.DetailedStatusMessage)
		}
	}
	if !req.Operation.Disruptive() || !b.HasRole(model.RoleKCP) {
		return nil
	}
	for _, l := range held {
		if l.Disruptive && l.ControlPl {
			return fmt.Errorf("bmm %s is a KCP server and %s (%s) is already disrupting KCP server %s: one KCP disruption at a time keeps etcd quorum",
				req.BMM, l.Holder, l.Operation, l.BMM)
		}
	}
	// The server being acted on does not count against itself: rebooting a
	// sick KCP is how remediation mends the set.
	if missing := MissingKCP(c, req.BMM); len(missing) > 0 {
		return fmt.Errorf("bmm %s is a KCP server and the KCP set is not full (%s): no KCP disruption until it is", req.BMM, strings.Join(missing, "; "))
	}
	return nil
}

// MissingKCP lists why the active KCP set is not full: a KCP that is not
// Ready or has a read-only root filesystem (as the health monitor last
// recorded it), marked unhealthy, or fewer KCPs than the cluster's racks
// call for. The spare does not count (ControlPlane). A disruption is also
// decided on a live observation (internal/cpgate): this is the ledger's
// view, checked where no I/O is possible.
// The BMMs named in except are not held against the set.
func MissingKCP(c model.Cluster, except ...string) []string {
	racks := map[string]bool{}
	var out []string
	n := 0
	for _, b := range c.BMMs {
		racks[b.Rack] = true
		if !b.HasRole(model.RoleKCP) {
			continue
		}
		n++
		if slices.Contains(except, b.Name) {
			continue
		}
		switch {
		case b.MarkedUnhealthy():
			out = append(out, b.Name+" is unhealthy")
		case b.ReadyState != "" && b.ReadyState != model.ReadyTrue:
			out = append(out, fmt.Sprintf("%s is not Ready (%s%s)", b.Name, b.ReadyState, since(b)))
		case b.ReadOnlyRootFS:
			out = append(out, b.Name+" has a read-only root filesystem")
		case b.DetailedStatus != "" && b.DetailedStatus != model.BMMProvisioned:
			out = append(out, fmt.Sprintf("%s is %s", b.Name, b.DetailedStatus))
		}
	}
	want, _ := model.ControlPlaneSize(len(racks))
	if n < want {
		out = append(out, fmt.Sprintf("%d of %d KCP servers", n, want))
	}
	return out
}

// Grant returns held with the new lease added (sorted by BMM), unless the
// holder already had it.
func Grant(held []Lease, req Request, isKCP bool, now time.Time) []Lease {
	for _, l := range held {
		if l.BMM == req.BMM && l.Holder == req.Holder {
			return held
		}
	}
	out := append(append([]Lease(nil), held...), Lease{BMM: req.BMM, Holder: req.Holder, Operation: req.Operation,
		Disruptive: req.Operation.Disruptive(), ControlPl: isKCP, Since: now})
	sort.Slice(out, func(i, j int) bool { return out[i].BMM < out[j].BMM })
	return out
}

// Release drops the leases of holder on bmm ("" = every BMM of holder).
func Release(held []Lease, bmm, holder string) []Lease {
	var out []Lease
	for _, l := range held {
		if l.Holder == holder && (bmm == "" || l.BMM == bmm) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// Holders lists the distinct holder ids, sorted.
func Holders(held []Lease) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range held {
		if !seen[l.Holder] {
			seen[l.Holder] = true
			out = append(out, l.Holder)
		}
	}
	sort.Strings(out)
	return out
}

func names(c model.Cluster) []string {
	out := make([]string, 0, len(c.BMMs))
	for _, b := range c.BMMs {
		out = append(out, b.Name)
	}
	sort.Strings(out)
	if len(out) > 12 {
		out = append(out[:12], fmt.Sprintf("… (%d in all)", len(c.BMMs)))
	}
	return out
}

func since(b model.BMM) string {
	if b.ReadySince == nil {
		return ""
	}
	return " since " + b.ReadySince.UTC().Format(time.RFC3339)
}
