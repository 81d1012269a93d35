// Package upgradeplan decides, without I/O, what a runtime upgrade will do:
// the serial KCP order, the two management groups in two stages each, the
// compute racks in natural order with their thresholds and batches, and the
// critical path (docs/behaviour-upgrade.md#upgrade). `starter upgrade plan` prints it and
// RuntimeUpgradeWorkflow follows it.
package upgradeplan

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
)

// KCPStep is one serial step of the control-plane phase.
type KCPStep struct {
	BMM    string    `json:"bmm"`
	Action KCPAction `json:"action"`
	Skip   bool      `json:"skip,omitempty"` // nothing to do (a resumed upgrade)
	// Why says why a skipped step has nothing to do.
	Why string `json:"why,omitempty"`
	// Kept: skipped because the server stays on its version by design
	// (the spare once the active KCPs run the target), not because it is
	// at the target.
	Kept bool `json:"kept,omitempty"`
}

// KCPAction is what a control-plane step does to its server.
type KCPAction string

const (
	// KCPUpgradeSpare: the spare is reimaged and joins the control plane.
	KCPUpgradeSpare KCPAction = "upgrade-spare"
	// KCPSwap: an active KCP leaves, is reimaged, rejoins.
	KCPSwap KCPAction = "swap"
	// KCPRetire: the last KCP leaves and goes to Available as the new
	// spare, not reimaged.
	KCPRetire KCPAction = "retire"
	// KCPReimage: single rack, no spare: one KCP at a time in place.
	KCPReimage KCPAction = "reimage"
)

// Group is one management group and its two stages.
type Group struct {
	Name     string     `json:"name"`
	Stages   [][]string `json:"stages"`
	Required int        `json:"required"` // 50 % of the group, rounded up
}

// Rack is one compute rack.
type Rack struct {
	Name     string   `json:"name"`
	Servers  []string `json:"servers"`
	Required int      `json:"required"`
	Parallel int      `json:"parallel"` // maxUnavailable, capped at the rack size
}

// Plan is the whole upgrade.
type Plan struct {
	Cluster      string               `json:"cluster"`
	From         string               `json:"from"`
	To           string               `json:"to"`
	Strategy     model.UpdateStrategy `json:"strategy"`
	ControlPlane []KCPStep            `json:"controlPlane"`
	Management   []Group              `json:"managementGroups"`
	Racks        []Rack               `json:"racks"`
	// Canary are the compute servers upgraded before the rest (canary.go).
	Canary *Canary `json:"canary,omitempty"`
	// Skipped are the out-of-service servers (OutOfService): in no phase,
	// in no threshold.
	Skipped []Skipped `json:"skipped,omitempty"`
	// Resume is true when this runs an earlier upgrade to the same
	// version again; Finishing are then the servers it still reimages
	// (those the earlier run left behind), the rest being at the target.
	Resume    bool     `json:"resume,omitempty"`
	Finishing []string `json:"finishing,omitempty"`
	// AtTarget counts the planned servers that already run the target (an
	// earlier run reached them): each is skipped and counted as upgraded.
	AtTarget int `json:"atTarget,omitempty"`
	// FirmwareOnly is true when this runs the upgrade to the version the
	// cluster already runs, for the target's firmware baseline
	// (FirmwareRerun): nothing is reimaged.
	FirmwareOnly bool `json:"firmwareOnly,omitempty"`
}

// Build checks the request (version rule, strategy ranges, thresholds every
// rack can meet, cluster Running, KCP set full) and returns the plan. All
// problems come back at once.
//
// resume is true when the cluster's failed or paused state comes from an
// earlier upgrade to the same version: running it again resumes it, and
// the KCP the earlier run left mid-step is redone first (Interrupted).
func Build(c model.Cluster, to string, s model.UpdateStrategy, resume bool, opts ...Option) (Plan, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	// The one place the strategy's defaults are applied: the plan (and
	// through it the workflow, its status and each rack) carries them.
	s = s.WithDefaults()
	p := Plan{Cluster: c.Name, From: c.RuntimeVersion, To: to, Strategy: s}
	var problems []string
	add := func(err error) {
		if err != nil {
			problems = append(problems, err.Error())
		}
	}
	if target, err := model.ParseVersion(to); err != nil {
		add(fmt.Errorf("targetVersion: %w", err))
	} else if from, err := model.ParseVersion(c.RuntimeVersion); err != nil {
		add(fmt.Errorf("cluster runtimeVersion: %w", err))
	} else if o.firmwareRerun && target.Compare(from) == 0 {
		p.FirmwareOnly = true
	} else {
		add(model.CheckUpgrade(from, target))
	}
	add(s.Validate())
	switch c.DetailedStatus {
	case model.ClusterRunning, "":
	case model.ClusterFailed, model.ClusterUpdatePaused, model.ClusterUpdating:
		if !resume {
			add(fmt.Errorf("cluster %s is %s, not Running: %s", c.Name, c.DetailedStatus, c.DetailedStatusMessage))
		}
	default:
		add(fmt.Errorf("cluster %s is %s, not Running: %s", c.Name, c.DetailedStatus, c.DetailedStatusMessage))
	}
	p.ControlPlane = controlPlane(c, to, !o.legacy, !o.retireLast)
	var redo []string
	if resume && !o.legacy {
		p.ControlPlane = finishRetire(c, to, p.ControlPlane)
		redo = Interrupted(c, p.ControlPlane)
	}
	add(checkKCPFull(c, redo...))
	p.Skipped = skippedOf(c)
	add(checkSpare(c, p.Skipped))

	p.Management = management(c, to)
	p.Racks = racks(c, s, to)
	p.Canary = canaryOf(c, p.Racks, s.Systemic(), to)
	todo := finishing(c, p)
	p.AtTarget = len(reimaged(p)) - len(todo)
	if resume {
		p.Resume, p.Finishing = true, todo
	}
	sizes := map[string]int{}
	for _, r := range p.Racks {
		sizes[r.Name] = len(r.Servers)
	}
	add(s.CheckRacks(sizes))
	if len(problems) > 0 {
		return p, fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return p, nil
}

// checkKCPFull refuses an upgrade whose control plane is not whole, by
// the one definition the lease uses (lease.MissingKCP: the active KCPs,
// the spare not counted; except the KCP a resume redoes first). The
// ledger's readiness it reads is what the health monitor last observed;
// each KCP step asks the live gate again.
func checkKCPFull(c model.Cluster, except ...string) error {
	if bad := lease.MissingKCP(c, except...); len(bad) > 0 {
		return fmt.Errorf("KCP set is not full: %s; restore it before upgrading", strings.Join(bad, "; "))
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "no message"
	}
	return s
}

// names lists the in-service BMMs of role in rack order: an out-of-service
// server is in no phase (Plan.Skipped).
func names(c model.Cluster, role model.Role) []string {
	var out []string
	for _, b := range c.BMMs {
		if b.HasRole(role) && OutOfService(b) == "" {
			out = append(out, b.Name)
		}
	}
	sortByRack(c, out)
	return out
}

// sortByRack orders BMM names by rack (natural), then name (natural).
func sortByRack(c model.Cluster, ns []string) {
	rack := map[string]string{}
	for _, b := range c.BMMs {
		rack[b.Name] = b.Rack
	}
	sort.SliceStable(ns, func(i, j int) bool {
		if rack[ns[i]] != rack[ns[j]] {
			return model.NaturalLess(rack[ns[i]], rack[ns[j]])
		}
		return model.NaturalLess(ns[i], ns[j])
	})
}

func atTarget(c model.Cluster, name, to string) bool {
	b, ok := c.BMM(name)
	return ok && b.RuntimeVersion == to && b.DetailedStatus != model.BMMError
}

// controlPlane: the spare first, then each active KCP in rack order; the
// last to leave retires to Available as the new spare. Without a spare
// (single rack) each KCP is reimaged in place, one at a time. A resumed
// upgrade may find the spare already promoted (one KCP more than the
// table's count): the remaining old KCPs swap, and the last of them retires.
func controlPlane(c model.Cluster, to string, joinAtTarget, retireInSparesRack bool) []KCPStep {
	kcp := names(c, model.RoleKCP)
	spares := names(c, model.RoleKCPSpare)
	racks := map[string]bool{}
	for _, b := range c.BMMs {
		racks[b.Rack] = true
	}
	want, _ := model.ControlPlaneSize(len(racks))
	var out []KCPStep
	switch {
	case len(spares) > 0:
		// Active KCPs that all run the target (as many as the table wants)
		// mean the phase is done: the spare retired on the old version by
		// design, and upgrading it again would promote a second KCP.
		done := len(kcp) >= want
		for _, k := range kcp {
			done = done && atTarget(c, k, to)
		}
		// A spare on the target that has not joined (an interrupted run
		// upgraded it, or a failover provisioned it on the target) still
		// joins: its step skips the reimage, then promotes it. Skipping
		// it would retire the only old KCP with nobody promoted.
		step := KCPStep{BMM: spares[0], Action: KCPUpgradeSpare, Skip: done || !joinAtTarget && atTarget(c, spares[0], to)}
		if done {
			step.Why = "the active KCPs already run " + to + "; the spare waits on its version by design"
			step.Kept = !atTarget(c, spares[0], to)
		}
		out = append(out, skipWhy(c, step, to))
	case len(kcp) <= want:
		for _, k := range kcp {
			out = append(out, skipWhy(c, KCPStep{BMM: k, Action: KCPReimage, Skip: atTarget(c, k, to)}, to))
		}
		return out
	}
	// The server to retire is the last KCP still on the old version; a
	// run interrupted after its last swap (every KCP at the target, one
	// over the table) still retires one: the last. Unless RetireLastKCP: one
	// sharing its rack with the spare (or, once the spare joined, with it),
	// so the KCPs keep one rack each (docs/behaviour.md#placement).
	retire := -1
	for i := len(kcp) - 1; i >= 0; i-- {
		if !atTarget(c, kcp[i], to) {
			retire = i
			break
		}
	}
	if retireInSparesRack {
		if i := oldKCPSharingARack(c, kcp, spares, to); i >= 0 {
			retire = i
		}
	}
	if retire < 0 && len(kcp) > want {
		retire = len(kcp) - 1
	}
	for i, k := range kcp {
		if i == retire {
			continue
		}
		out = append(out, skipWhy(c, KCPStep{BMM: k, Action: KCPSwap, Skip: atTarget(c, k, to)}, to))
	}
	if retire >= 0 {
		out = append(out, KCPStep{BMM: kcp[retire], Action: KCPRetire})
	}
	return out
}

// oldKCPSharingARack is the index in kcp of the last KCP still on the old
// version whose rack holds another control-plane server (a KCP, or the
// spare that will join), or -1. Before the spare joins that is the KCP in
// the spare's rack; after, the promoted spare's rack-mate: the same one.
func oldKCPSharingARack(c model.Cluster, kcp, spares []string, to string) int {
	perRack := map[string]int{}
	for _, n := range append(append([]string(nil), kcp...), spares...) {
		b, _ := c.BMM(n)
		perRack[b.Rack]++
	}
	for i := len(kcp) - 1; i >= 0; i-- {
		if b, _ := c.BMM(kcp[i]); perRack[b.Rack] > 1 && !atTarget(c, kcp[i], to) {
			return i
		}
	}
	return -1
}

// skipWhy says why a skipped step has nothing to do, unless said already.
func skipWhy(c model.Cluster, k KCPStep, to string) KCPStep {
	if k.Skip && k.Why == "" && atTarget(c, k.BMM, to) {
		k.Why = "already at " + to
	}
	return k
}

// management: group a then b, each split in two stages (half each).
func management(c model.Cluster, to string) []Group {
	byGroup := map[string][]string{}
	for _, n := range names(c, model.RoleManagement) {
		b, _ := c.BMM(n)
		g := b.ManagementGroup
		if g == "" {
			g = "a"
		}
		byGroup[g] = append(byGroup[g], n)
	}
	var out []Group
	for _, g := range sortedKeys(byGroup) {
		ms := byGroup[g]
		half := (len(ms) + 1) / 2
		stages := [][]string{ms[:half]}
		if len(ms) > half {
			stages = append(stages, ms[half:])
		}
		out = append(out, Group{Name: g, Stages: stages, Required: (len(ms) + 1) / 2})
	}
	return out
}

func racks(c model.Cluster, s model.UpdateStrategy, to string) []Rack {
	byRack := map[string][]string{}
	for _, n := range names(c, model.RoleCompute) {
		b, _ := c.BMM(n)
		byRack[b.Rack] = append(byRack[b.Rack], n)
	}
	keys := make([]string, 0, len(byRack))
	for k := range byRack {
		keys = append(keys, k)
	}
	model.SortNatural(keys)
	var out []Rack
	for _, k := range keys {
		ss := byRack[k]
		out = append(out, Rack{Name: k, Servers: ss, Required: s.Required(len(ss)), Parallel: s.Parallel(len(ss))})
	}
	return out
}

func sortedKeys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// CriticalPath estimates the wall time when one server upgrade takes
// perServer: each KCP step is serial, each management stage runs its
// servers at once, each rack runs ceil(n/parallel) waves, and the wait
// timer runs after every rack but the last.
func (p Plan) CriticalPath(perServer time.Duration) time.Duration {
	var d time.Duration
	units := p.Units()
	for i, u := range units {
		d += time.Duration(u.Rounds) * perServer
		if u.Kind == UnitRack && i < len(units)-1 {
			d += p.Strategy.Wait()
		}
	}
	return d
}
