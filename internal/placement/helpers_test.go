package placement

import (
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/model"
)

// layout builds an inventory from racks written "rack1: m1 m2 c1": server
// rack1-m1 and so on, the first letter giving the role (m management,
// c compute, k pinned kcp, s pinned kcp-spare).
func layout(racks ...string) *model.Inventory {
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

// summary writes assignments rack by rack, "rack1[m1:kcp m2:a c1:c]", with
// kcp-spare as spare, management groups as a or b and compute as c.
func summary(as []Assignment) string {
	var b strings.Builder
	rack := ""
	for _, a := range as {
		if a.Rack != rack {
			if rack != "" {
				b.WriteString("] ")
			}
			rack = a.Rack
			b.WriteString(rack + "[")
		} else {
			b.WriteString(" ")
		}
		what := string(a.Role)
		switch a.Role {
		case model.RoleKCPSpare:
			what = "spare"
		case model.RoleManagement:
			what = a.ManagementGroup
		case model.RoleCompute:
			what = "c"
		}
		fmt.Fprintf(&b, "%s:%s", strings.TrimPrefix(a.Name, rack+"-"), what)
	}
	if rack != "" {
		b.WriteString("]")
	}
	return b.String()
}

// uniform writes n racks each with the given servers.
func uniform(n int, servers string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("rack%d: %s", i+1, servers)
	}
	return out
}
