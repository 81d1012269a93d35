package remediate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
)

// RoleChange relabels one BMM; Group is its management group when To is
// management.
type RoleChange struct {
	BMM   string     `json:"bmm"`
	From  model.Role `json:"from"`
	To    model.Role `json:"to"`
	Group string     `json:"group,omitempty"`
}

// FailoverPlan is what KCPFailoverWorkflow does once a KCP (or the spare)
// has been marked Unhealthy.
type FailoverPlan struct {
	Failed string `json:"failed"`
	// Spare becomes an active KCP at once; empty when the spare itself failed.
	Spare string `json:"spare,omitempty"`
	// NewSpare is the management server that becomes the spare; empty when
	// none is healthy, and NoNewSpare says why.
	NewSpare   string `json:"newSpare,omitempty"`
	NoNewSpare string `json:"noNewSpare,omitempty"`
	// FailedNewGroup is the management group the failed BMM joins when it
	// is relabelled management (and then re-provisioned).
	FailedNewGroup string `json:"failedNewGroup"`
	// RoleChanges in the order to apply: promote the spare first so the
	// active set is whole again as soon as possible, then the new spare,
	// then the failed BMM.
	RoleChanges []RoleChange `json:"roleChanges"`
}

// PlanFailover plans the swap of a failed KCP (docs/behaviour.md#remediation, KCP
// remediation details). It errors, changing nothing, when failed is not a
// KCP or spare of c, or when a failed KCP has no usable spare (a single
// rack keeps none): the KCP then just stays marked Unhealthy. A missing
// healthy management server is not an error: restoring the active set
// matters most, so the spare is still promoted and the spare slot stays
// empty (NoNewSpare) until a server is repaired or replaced.
func PlanFailover(c model.Cluster, failed string) (FailoverPlan, error) {
	fb, ok := c.BMM(failed)
	if !ok {
		return FailoverPlan{}, fmt.Errorf("bmm %s is not in cluster %s: nothing to fail over", failed, c.Name)
	}
	role := RoleOf(*fb)
	if !role.IsControlPlane() {
		return FailoverPlan{}, fmt.Errorf("bmm %s is %s, not a KCP or the spare: failover is for control-plane servers", failed, role)
	}
	spare := ""
	if role == model.RoleKCP {
		var err error
		if spare, err = usableSpare(c, failed); err != nil {
			return FailoverPlan{}, err
		}
	}
	return planWith(c, failed, spare), nil
}

// PlanStandIn plans the failover of a KCP whose spare is unusable (marked,
// missing) on a site that keeps one: the server NextKCP picks is promoted
// instead. With none left it errors, naming each server and why it was
// refused; the site then stays a KCP short.
func PlanStandIn(c model.Cluster, failed string, noSpare error) (FailoverPlan, error) {
	next, refusals := NextKCP(c, failed, nil)
	if next == "" {
		return FailoverPlan{}, fmt.Errorf("%v; no server can take its place (%s)", noSpare, Refusals(refusals))
	}
	return planWith(c, failed, next), nil
}

// planWith plans the swap of failed for spare ("" when the spare itself
// failed): spare promoted, a new spare chosen, failed relabelled.
func planWith(c model.Cluster, failed, spare string) FailoverPlan {
	fb, _ := c.BMM(failed)
	role := RoleOf(*fb)
	p := FailoverPlan{Failed: failed, Spare: spare}
	bmms := c.BMMs
	if spare != "" {
		sb, _ := c.BMM(spare)
		p.RoleChanges = append(p.RoleChanges, RoleChange{BMM: spare, From: RoleOf(*sb), To: model.RoleKCP})
		// The new spare is chosen as if the stand-in were a KCP already.
		bmms = append([]model.BMM(nil), c.BMMs...)
		for i := range bmms {
			if bmms[i].Name == spare {
				bmms[i].Roles = []model.Role{model.RoleKCP}
			}
		}
	}
	p.ChooseNewSpare(c, bmms)
	p.ChooseFailedGroup(c)
	p.RoleChanges = append(p.RoleChanges, RoleChange{BMM: failed, From: role, To: model.RoleManagement, Group: p.FailedNewGroup})
	return p
}

// ChooseNewSpare makes the healthy management server placement picks
// among bmms the new spare, or says in NoNewSpare why none can be. A site
// whose table keeps no spare (one rack) gets none.
func (p *FailoverPlan) ChooseNewSpare(c model.Cluster, bmms []model.BMM) {
	if _, keeps := c.ControlPlaneSize(); keeps == 0 {
		return
	}
	ns, err := placement.ChooseNewSpare(bmms, p.Failed)
	if err != nil {
		p.NoNewSpare = err.Error() + "; the spare slot stays empty until one is repaired or replaced"
		return
	}
	p.NewSpare = ns
	p.RoleChanges = append(p.RoleChanges, RoleChange{BMM: ns, From: model.RoleManagement, To: model.RoleKCPSpare})
}

// ChooseFailedGroup picks the management group the failed BMM joins, with
// the groups as they will be once the new spare has left its own.
func (p *FailoverPlan) ChooseFailedGroup(c model.Cluster) {
	fb, _ := c.BMM(p.Failed)
	after := append([]model.BMM(nil), c.BMMs...)
	for i := range after {
		if after[i].Name == p.NewSpare || after[i].Name == p.Failed {
			after[i].ManagementGroup = ""
		}
	}
	p.FailedNewGroup = placement.ChooseGroup(after, fb.Rack)
}

// ErrNoSpare: a failed KCP has no usable spare (PlanStandIn may find a
// stand-in where the site keeps a spare).
var ErrNoSpare = errors.New("no failover")

// usableSpare is the first spare, in natural order, not marked Unhealthy. A
// spare that is deprovisioned (Available) is usable: promotion provisions it.
func usableSpare(c model.Cluster, failed string) (string, error) {
	var spares, marked []string
	racks := map[string]bool{}
	for _, b := range c.BMMs {
		racks[b.Rack] = true
		if b.Name == failed || RoleOf(b) != model.RoleKCPSpare {
			continue
		}
		if b.MarkedUnhealthy() {
			marked = append(marked, b.Name)
		} else {
			spares = append(spares, b.Name)
		}
	}
	model.SortNatural(spares)
	if len(spares) > 0 {
		return spares[0], nil
	}
	if len(marked) > 0 {
		model.SortNatural(marked)
		return "", fmt.Errorf("%w for KCP %s: the spare %s is marked Unhealthy too; %s stays marked Unhealthy; replace it and the spare",
			ErrNoSpare, failed, strings.Join(marked, ", "), failed)
	}
	why := "the spare is missing"
	if len(racks) == 1 {
		why = "a single-rack site runs three KCPs and keeps no spare"
	}
	return "", fmt.Errorf("%w for KCP %s: %s; %s stays marked Unhealthy; a BMM Replace action returns it to service", ErrNoSpare, failed, why, failed)
}
