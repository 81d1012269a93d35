package workflows

import (
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/rackroll/rackroll/internal/remediate"
)

// resumedFailover is the rest of a failover of failed that an earlier run
// left half-done (cancelled, failed, terminated); ok is false when there
// is none and the failover plans afresh (remediate.PlanFailover):
//   - the failed KCP is still a KCP, but the spare was promoted already
//     (the other active KCPs fill the table): no promotion; a new spare
//     unless one is labelled already; the relabel and the reprovision;
//   - the failed server is management already, its reprovision cut short
//     (not Provisioned): the reprovision.
func resumedFailover(c model.Cluster, failed string) (p remediate.FailoverPlan, ok bool) {
	fb, found := c.BMM(failed)
	if !found {
		return p, false
	}
	others, spare := 0, false
	for _, b := range c.BMMs {
		if b.Name == failed {
			continue
		}
		switch remediate.RoleOf(b) {
		case model.RoleKCP:
			others++
		case model.RoleKCPSpare:
			spare = true
		}
	}
	want, keeps := c.ControlPlaneSize()
	spare = spare || keeps == 0 // a one-rack site wants no new spare
	p.Failed = failed
	switch role := remediate.RoleOf(*fb); {
	case role == model.RoleKCP && others >= want:
		if !spare {
			if ns, err := placement.ChooseNewSpare(c.BMMs, failed); err != nil {
				p.NoNewSpare = err.Error() + "; the spare slot stays empty until one is repaired or replaced"
			} else {
				p.NewSpare = ns
				p.RoleChanges = append(p.RoleChanges, remediate.RoleChange{BMM: ns, From: model.RoleManagement, To: model.RoleKCPSpare})
			}
		}
		after := append([]model.BMM(nil), c.BMMs...)
		for i := range after {
			if after[i].Name == p.NewSpare || after[i].Name == failed {
				after[i].ManagementGroup = ""
			}
		}
		p.FailedNewGroup = placement.ChooseGroup(after, fb.Rack)
	case role == model.RoleManagement && fb.DetailedStatus != model.BMMProvisioned:
		p.FailedNewGroup = fb.ManagementGroup
	default:
		return remediate.FailoverPlan{}, false
	}
	p.RoleChanges = append(p.RoleChanges, remediate.RoleChange{BMM: failed, From: remediate.RoleOf(*fb), To: model.RoleManagement, Group: p.FailedNewGroup})
	return p, true
}
