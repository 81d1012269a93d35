// Package modeltest builds the clusters and inventories that the tests of
// the pure packages (placement, remediate, upgradeplan, lease) reason
// about, one short string per server, so each test shows its site at a
// glance.
package modeltest

import (
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/model"
)

// Version is the runtime every built cluster and BMM runs.
const Version = "4.1.2"

// Cluster builds the ledger of cluster site-a, Running on Version, from
// entries written "rack1-m1:kcp" or "rack1-m2:management/a" (with its
// management group): healthy BMMs, provisioned, Ready and on Version, in
// the rack their name starts with ("rack1" of "rack1-m1"), each its own
// node. A trailing "!" marks the BMM Unhealthy, "?" makes its node Unknown
// and "~" deprovisions it (Available, no node: an idle spare).
func Cluster(entries ...string) model.Cluster {
	c := model.Cluster{Name: "site-a", RuntimeVersion: Version, DetailedStatus: model.ClusterRunning}
	for _, e := range entries {
		b := model.BMM{ReadyState: model.ReadyTrue, DetailedStatus: model.BMMProvisioned, RuntimeVersion: Version}
		switch {
		case strings.HasSuffix(e, "!"):
			b.DetailedStatusMessage = model.UnhealthyMessage
		case strings.HasSuffix(e, "?"):
			b.ReadyState = model.ReadyUnknown
		case strings.HasSuffix(e, "~"):
			b.DetailedStatus, b.ReadyState = model.BMMAvailable, ""
		}
		e = strings.TrimRight(e, "!?~")
		name, role, _ := strings.Cut(e, ":")
		role, b.ManagementGroup, _ = strings.Cut(role, "/")
		b.Name, b.NodeName = name, name
		b.Rack, _, _ = strings.Cut(name, "-")
		b.Roles = []model.Role{model.Role(role)}
		c.BMMs = append(c.BMMs, b)
	}
	return c
}

// Inventory builds an inventory from racks written "rack1: m1 m2 c1":
// server rack1-m1 and so on, the first letter giving the role the
// inventory asks for (m management, c compute, k pinned kcp, s pinned
// kcp-spare).
func Inventory(racks ...string) *model.Inventory {
	roles := map[byte]model.Role{'m': model.RoleManagement, 'c': model.RoleCompute, 'k': model.RoleKCP, 's': model.RoleKCPSpare}
	inv := &model.Inventory{}
	for _, spec := range racks {
		name, servers, _ := strings.Cut(spec, ":")
		r := model.RackSpec{Name: name}
		for _, s := range strings.Fields(servers) {
			r.Servers = append(r.Servers, model.ServerSpec{Name: name + "-" + s, Role: roles[s[0]]})
		}
		inv.Racks = append(inv.Racks, r)
	}
	return inv
}

// Uniform writes n racks, rack1 to rackn, each with the given servers, for
// Inventory.
func Uniform(n int, servers string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("rack%d: %s", i+1, servers)
	}
	return out
}

// Replace is a copy of entries with old written as new, for a variant of
// a site ("rack2-m2:management" as "rack2-m2:management!").
func Replace(entries []string, old, new string) []string {
	out := append([]string(nil), entries...)
	for i, s := range out {
		if s == old {
			out[i] = new
		}
	}
	return out
}
