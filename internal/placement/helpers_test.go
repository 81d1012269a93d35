package placement

import (
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/model"
)

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
