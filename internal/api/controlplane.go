package api

import (
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
)

// ControlPlaneLine is what `cluster show` says of the control plane: the
// active KCPs serving (a KCP marked Unhealthy does not serve) against the
// table's count, and the spare.
func (st ClusterState) ControlPlaneLine() string {
	var spares []string
	for _, b := range st.Cluster.BMMs {
		if b.HasRole(model.RoleKCPSpare) {
			spares = append(spares, b.Name)
		}
	}
	var active []string
	for _, n := range lease.ControlPlane(st.Cluster) {
		if b, _ := st.Cluster.BMM(n); !b.MarkedUnhealthy() {
			active = append(active, n)
		}
	}
	want, _ := st.Cluster.ControlPlaneSize()
	spare := "no spare"
	if len(spares) > 0 {
		model.SortNatural(spares)
		spare = "spare " + strings.Join(spares, ", ")
	}
	return fmt.Sprintf("control plane: %d active KCP of %d (%s); %s", len(active), want, orNone(active), spare)
}

// UnhealthyLine names the BMMs marked Unhealthy, each with why, since when
// and by whom ("" when none is).
func (st ClusterState) UnhealthyLine() string {
	var out []string
	for _, b := range st.Cluster.BMMs {
		if !b.MarkedUnhealthy() {
			continue
		}
		s := b.Name
		if m := b.Unhealthy; m != nil {
			s += fmt.Sprintf(" (since %s by %s: %s)", m.Since.UTC().Format(time.RFC3339), m.By, m.Reason)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return ""
	}
	return "marked Unhealthy (only a replace clears the mark): " + strings.Join(out, "; ")
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
