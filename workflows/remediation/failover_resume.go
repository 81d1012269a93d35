package remediation

import (
	"github.com/rackroll/rackroll/internal/model"
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
	want, _ := c.ControlPlaneSize()
	p.Failed = failed
	switch role := remediate.RoleOf(*fb); {
	case role == model.RoleKCP && others >= want:
		if !spare {
			p.ChooseNewSpare(c, c.BMMs)
		}
		p.ChooseFailedGroup(c)
	case role == model.RoleManagement && fb.DetailedStatus != model.BMMProvisioned:
		p.FailedNewGroup = fb.ManagementGroup
	default:
		return remediate.FailoverPlan{}, false
	}
	p.RoleChanges = append(p.RoleChanges, remediate.RoleChange{BMM: failed, From: remediate.RoleOf(*fb), To: model.RoleManagement, Group: p.FailedNewGroup})
	return p, true
}
