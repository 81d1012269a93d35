package lab

import (
	"strconv"

	"github.com/rackroll/rackroll/internal/model"
)

// validateTenantLoad checks lab.tenantLoad: a rack or server of the
// inventory to a share between 0 and 1.
func (l *Spec) validateTenantLoad(e *model.ValidationError, servers, racks map[string]bool) {
	for _, k := range targets(e, "lab.tenantLoad.", l.TenantLoad, servers, racks) {
		if v := l.TenantLoad[k]; v < 0 || v > 1 {
			e.Add("lab.tenantLoad."+k, strconv.FormatFloat(v, 'g', -1, 64), "must be between 0 and 1: the share of a compute node's CPU and memory its tenant pods request")
		}
	}
}

// LoadOf is the tenant load of server name in rack: its own entry, else
// its rack's, else 0 (pods request nothing).
func (l *Spec) LoadOf(rack, name string) float64 {
	if l == nil {
		return 0
	}
	for _, k := range []string{name, rack} {
		if v, ok := l.TenantLoad[k]; ok {
			return v
		}
	}
	return 0
}
