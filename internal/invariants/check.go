package invariants

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
)

// Check replays evs (in log order) against site and returns every
// violation, in the order the log reached them. An empty result means the
// log keeps every rule the site's description lets it check.
func Check(evs []events.Event, site Site) []Violation {
	c := &checker{st: newState(site), upgrading: map[string]string{}, rackSeen: map[string]bool{}}
	c.unitEnds = unitEnds(evs, site.Units)
	rems := append([]Remediation(nil), site.Remediations...)
	sort.SliceStable(rems, func(i, j int) bool { return rems[i].StartedAt.Before(rems[j].StartedAt) })
	for i, e := range evs {
		// A remediation sees the site as the log left it at its start.
		for len(rems) > 0 && rems[0].StartedAt.Before(e.Time) {
			c.remediationStart(rems[0])
			rems = rems[1:]
		}
		c.event(i, e)
	}
	for _, r := range rems {
		c.remediationStart(r)
	}
	if site.EtcdMembership && len(evs) > 0 {
		c.memberSet(evs[len(evs)-1])
	}
	if site.PlacementTable && len(evs) > 0 {
		c.placementTable(evs[len(evs)-1])
	}
	for _, r := range site.Remediations {
		c.ladder(r, evs)
	}
	return c.out
}

type checker struct {
	st        *state
	out       []Violation
	upgrading map[string]string // compute BMM in an upgrade reimage -> rack
	rackSeen  map[string]bool   // racks whose compute upgrade has begun
	rackOrder []string
	unitEnds  []int // per Site.Units: index of the unit's last reimage event, -1 none
	etcd      etcdState
}

func (c *checker) add(rule string, e events.Event, format string, args ...any) {
	c.out = append(c.out, Violation{Rule: rule, Time: e.Time, BMM: e.BMM, Detail: fmt.Sprintf(format, args...)})
}

func (c *checker) event(i int, e events.Event) {
	st := c.st
	role := st.role[e.BMM]
	before := st.activeKCP()
	if isDisruption(e.Kind) && role == model.RoleKCP && !st.disrupted[e.BMM] {
		if others := st.disruptedControlPlane(e.BMM); len(others) > 0 {
			c.add(RuleControlPlaneOneAtATime, e, "%s of %s %s while control-plane %s is still disrupted (no node-ready yet)",
				e.Kind, role, e.BMM, strings.Join(others, ", "))
		}
	}
	if c.isUpgradeReimage(e) && role == model.RoleCompute {
		c.computeUpgrade(i, e)
	}
	if e.Kind == events.ReimageStart {
		c.pauses(i, e)
	}
	c.roomHolds(e)
	c.healthyFirst(e, isDisruption(e.Kind) && !st.disrupted[e.BMM])
	st.apply(e)
	c.etcdEvent(e)
	if e.Kind == events.NodeReady || e.Kind == events.ReimageFailed {
		delete(c.upgrading, e.BMM)
	}
	// Only what rackroll does counts against it: a fault that takes a KCP
	// down is what remediation is for, not a broken promise.
	if isDisruption(e.Kind) || e.Kind == events.NodeLabel {
		if after := st.activeKCP(); after < before && after < st.required {
			c.add(RuleControlPlaneCount, e, "%s of %s leaves %d active KCPs serving, below the site's %d",
				e.Kind, e.BMM, after, st.required)
		}
	}
}

func (c *checker) isUpgradeReimage(e events.Event) bool {
	if e.Kind != events.ReimageStart {
		return false
	}
	if c.st.site.TargetVersion == "" {
		return true
	}
	v, _ := e.Detail["version"].(string)
	return v == c.st.site.TargetVersion
}

// computeUpgrade applies the rack rules to an upgrade reimage of a compute
// server.
func (c *checker) computeUpgrade(_ int, e events.Event) {
	rack := c.st.rack[e.BMM]
	if e.Rack != "" {
		rack = e.Rack
	}
	var others []string
	for b, r := range c.upgrading {
		if r != rack {
			others = append(others, b+" ("+r+")")
		}
	}
	if len(others) > 0 {
		sort.Strings(others)
		c.add(RuleRackOverlap, e, "compute %s of %s starts its upgrade reimage while %s of another rack is still in one",
			e.BMM, rack, strings.Join(others, ", "))
	}
	c.upgrading[e.BMM] = rack
	if c.rackSeen[rack] {
		return
	}
	for _, r := range c.rackOrder {
		if model.NaturalLess(rack, r) {
			c.add(RuleRackOrder, e, "rack %s starts its compute upgrade after rack %s: racks go in natural order (%s before %s)",
				rack, r, rack, r)
			break
		}
	}
	c.rackSeen[rack] = true
	c.rackOrder = append(c.rackOrder, rack)
}

// pauses applies the threshold and pause-after-rack rules: once a unit that
// paused the upgrade is over, no server outside it starts an upgrade
// reimage until continue-update.
func (c *checker) pauses(i int, e events.Event) {
	if !c.isUpgradeReimage(e) {
		return
	}
	for ui, u := range c.st.site.Units {
		if (!u.Missed() && !u.PauseAfter && !u.Systemic) || c.unitEnds[ui] < 0 || i <= c.unitEnds[ui] || slices.Contains(u.Servers, e.BMM) {
			continue
		}
		if u.ContinuedAt != nil && !e.Time.Before(*u.ContinuedAt) {
			continue
		}
		rule, why := RulePauseAfterRack, "paused after it (PauseAfterRack)"
		switch {
		case u.Systemic:
			rule, why = RuleSystemic, "failed systemically (every server at the same step)"
		case u.Missed():
			rule, why = RuleThreshold, fmt.Sprintf("missed its threshold (%d of %d needed)", u.Succeeded, u.Required)
		}
		when := "no continue-update came"
		if u.ContinuedAt != nil {
			when = "continue-update came only at " + u.ContinuedAt.UTC().Format("2006-01-02T15:04:05.999Z07:00")
		}
		c.add(rule, e, "%s starts its upgrade reimage after %s %s; %s", e.BMM, u.Name, why, when)
	}
}

// unitEnds finds, per unit, the index of the last reimage event of its
// servers: where the unit was over and the pause, if any, began.
func unitEnds(evs []events.Event, units []Unit) []int {
	out := make([]int, len(units))
	for ui, u := range units {
		out[ui] = -1
		for i, e := range evs {
			switch e.Kind {
			case events.ReimageStart, events.ReimageDone, events.ReimageFailed:
				if slices.Contains(u.Servers, e.BMM) {
					out[ui] = i
				}
			}
		}
	}
	return out
}
