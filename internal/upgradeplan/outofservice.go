package upgradeplan

import (
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/model"
)

// Skipped is a server the upgrade leaves alone, and why.
type Skipped struct {
	BMM    string `json:"bmm"`
	Role   string `json:"role"`
	Reason string `json:"reason"`
}

// OutOfService is why b is out of service ("" when it serves): remediation
// marked it Unhealthy (and, for a compute server, powered it off after
// deleting its node). Only a Replace clears the mark, so an upgrade never
// touches it: its cordon would fail on the deleted node, and a reimage
// would hide the mark rather than mend the hardware.
func OutOfService(b model.BMM) string {
	if !b.MarkedUnhealthy() {
		return ""
	}
	if b.PowerState == model.PowerOff {
		return "marked Unhealthy and powered off by remediation: only replace returns it to service"
	}
	return "marked Unhealthy by remediation: only replace returns it to service"
}

// skippedOf lists the out-of-service servers in rack order.
func skippedOf(c model.Cluster) []Skipped {
	var ns []string
	for _, b := range c.BMMs {
		if OutOfService(b) != "" {
			ns = append(ns, b.Name)
		}
	}
	sortByRack(c, ns)
	var out []Skipped
	for _, n := range ns {
		b, _ := c.BMM(n)
		roles := make([]string, 0, len(b.Roles))
		for _, r := range b.Roles {
			roles = append(roles, string(r))
		}
		out = append(out, Skipped{BMM: n, Role: strings.Join(roles, ","), Reason: OutOfService(*b)})
	}
	return out
}

// checkSpare refuses a plan whose spare is out of service when the active
// KCPs could not be reimaged in place one at a time without losing quorum
// (fewer than three): the spare is what keeps the control plane serving.
func checkSpare(c model.Cluster, skipped []Skipped) error {
	active := len(names(c, model.RoleKCP))
	for _, s := range skipped {
		if b, _ := c.BMM(s.BMM); b.HasRole(model.RoleKCPSpare) && active < 3 {
			return fmt.Errorf("KCP spare %s is %s; with %d active KCP the control plane cannot be upgraded without it: replace %s first",
				s.BMM, strings.TrimSuffix(s.Reason, ": only replace returns it to service"), active, s.BMM)
		}
	}
	return nil
}

// finishing lists the planned servers not yet at the target: exactly the
// ones a run reimages (when an upgrade to the same version runs again, the
// ones the earlier run left behind).
func finishing(c model.Cluster, p Plan) []string {
	var out []string
	for _, n := range reimaged(p) {
		if !atTarget(c, n, p.To) {
			out = append(out, n)
		}
	}
	return out
}

// reimaged lists the servers the plan may reimage, unit by unit
// (PlanUnit.Reimage).
func reimaged(p Plan) []string {
	var all []string
	for _, u := range p.Units() {
		all = append(all, u.Reimage...)
	}
	return all
}
