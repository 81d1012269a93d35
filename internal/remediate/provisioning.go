package remediate

import (
	"github.com/rackroll/rackroll/internal/model"
)

// ProvisioningOver lists, in natural order, the BMMs whose provisioning
// clock the ledger may clear: one runs, no provisioning workflow is under
// way (Deprovisioning or Provisioning: that workflow records its own end),
// and this round saw the node present and Ready. Registration starts the
// clock of every new BMM, so on a healthy site the first round clears
// them all; a BMM whose node never comes Ready keeps its clock until the
// provisioning-timeout trigger fires.
func ProvisioningOver(c model.Cluster, obs []Observation) []string {
	seen := map[string]Observation{}
	for _, o := range obs {
		if _, dup := seen[o.BMM]; !dup {
			seen[o.BMM] = o
		}
	}
	var out []string
	for _, b := range c.BMMs {
		o, ok := seen[b.Name]
		if !ok || b.ProvisioningSince == nil || b.DetailedStatus == model.BMMDeprovisioning || b.DetailedStatus == model.BMMProvisioning {
			continue
		}
		if o.Exists && o.Ready == model.ReadyTrue {
			out = append(out, b.Name)
		}
	}
	model.SortNatural(out)
	return out
}
