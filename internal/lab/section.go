package lab

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/model"
)

// Section is what the lab owns in an inventory file, which the model
// carries without reading (model.Inventory.Lab and LabAdmin): the `lab:`
// section `starter lab up` reads, and the `labAdmin:` address it writes into
// its out-inventory for `starter lab fault` and `lab status`.
type Section struct {
	Lab   *Spec  `json:"lab,omitempty"`
	Admin string `json:"labAdmin,omitempty"`
}

// Spec is the `lab:` section: simulated timings, faults and the vendor
// each BMC behaves like.
type Spec struct {
	Timings Timings `json:"timings,omitzero"`
	Faults  []Fault `json:"faults,omitempty"`
	// BMCProfile is the site's BMC vendor profile (redfish.ProfileNames;
	// default redfish.DefaultProfile, a realistic iDRAC9).
	BMCProfile string `json:"bmcProfile,omitempty"`
	// BMCProfiles overrides it per rack or per BMM (key: a rack or server
	// name; a server's entry wins over its rack's).
	BMCProfiles map[string]string `json:"bmcProfiles,omitempty"`
	// EtcdDetached keeps every etcd member running whatever its KCP's
	// machine does (power, reset, reimage): the control plane then outlives
	// its machines, as it did before the lab's etcd followed them. For
	// flows real etcd cannot serve, such as failing over a two-rack site's
	// only KCP while it is off.
	EtcdDetached bool `json:"etcdDetached,omitempty"`
	// MissingImages are versions whose installer image the lab's image
	// server does not have (404), as on a site where nobody uploaded it.
	MissingImages []string `json:"missingImages,omitempty"`
	// RedirectImages puts the image server behind a redirect: every
	// installer URL answers 302 to the same file on a mirror (images.go).
	RedirectImages bool `json:"redirectImages,omitempty"`
	// TenantLoad fills compute nodes (tenantload.go): a rack or server to
	// the share of its node's CPU and memory its tenant pods request.
	TenantLoad map[string]float64 `json:"tenantLoad,omitempty"`
	// Firmware sets the firmware a rack's or a server's BMC starts with:
	// kind (bios, bmc, nic, storage) to the version number, shown in its
	// profile's format (a server's entry over its rack's, both over the
	// profile's own versions).
	Firmware map[string]map[string]string `json:"firmware,omitempty"`
	// NodeAgent is what runs beside each stock kubelet: "" nothing (the
	// default, as on a site that installed none) or NodeAgentRelabel.
	NodeAgent string `json:"nodeAgent,omitempty"`
	// Unracked names racks or servers of the inventory that are delivered
	// but not racked when the lab starts: no BMC answers, no Node. The
	// operator racks them (Lab.Rack, `starter lab rack`) to grow the site.
	Unracked []string `json:"unracked,omitempty"`
}

// NodeAgentRelabel is an agent that sets the runtime-version label to the
// booted version on every boot (kubesim.Options.RelabelAgent): a site's
// own add-on, never the default, since a stock kubelet applies its
// --node-labels only when it registers a new Node.
const NodeAgentRelabel = "relabel"

// Relabels reports whether the site declares the relabelling agent.
func (l *Spec) Relabels() bool { return l != nil && l.NodeAgent == NodeAgentRelabel }

// Timings are how long the simulated hardware takes; zero means the lab's
// own default.
type Timings struct {
	Boot            model.Duration `json:"boot,omitempty"`
	Reimage         model.Duration `json:"reimage,omitempty"`
	PowerTransition model.Duration `json:"powerTransition,omitempty"`
	Drain           model.Duration `json:"drain,omitempty"`
	// Media is a slow BMC profile's media action (idrac9-slow: 20s, each
	// action taking it to twice it); profiles without slow media ignore it.
	Media model.Duration `json:"media,omitempty"`
	// Firmware is one firmware install; BMCReset how long a BMC answers
	// nothing after updating its own firmware.
	Firmware model.Duration `json:"firmware,omitempty"`
	BMCReset model.Duration `json:"bmcReset,omitempty"`
}

// Fault injects one kind of failure into one BMM from the start. Rate is
// the chance per attempt; 0 (unset) means every time.
type Fault struct {
	BMM  string      `json:"bmm"`
	Kind faults.Kind `json:"kind"`
	Rate float64     `json:"rate,omitempty"`
}

// SectionOf reads the lab's fields of inv with the inventory's strict
// checks; problems name their place in the file (lab.faults[0].rate).
func SectionOf(inv *model.Inventory) (Section, error) {
	var s Section
	doc := map[string]json.RawMessage{}
	if inv.Lab != nil {
		doc["lab"] = inv.Lab
	}
	if inv.LabAdmin != nil {
		doc["labAdmin"] = inv.LabAdmin
	}
	if len(doc) == 0 {
		return s, nil
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return s, err
	}
	return s, model.Decode(b, &s)
}

// Validate checks inv as `starter lab up` needs it, every problem at once:
// the site's (Inventory.Validate), then the lab's own fields.
func Validate(inv *model.Inventory) error {
	_, err := check(inv)
	return err
}

// check is Validate that also returns the lab's section.
func check(inv *model.Inventory) (Section, error) {
	var e model.ValidationError
	e.AddErr("", inv.Validate())
	s, err := SectionOf(inv)
	e.AddErr("", err)
	if err == nil {
		s.validate(&e, inv)
	}
	return s, e.Err()
}

func (s Section) validate(e *model.ValidationError, inv *model.Inventory) {
	if s.Lab != nil {
		s.Lab.validate(e, inv)
	}
	if s.Admin != "" && !model.IsHTTPURL(s.Admin) {
		e.Add("labAdmin", s.Admin, "must be an http(s) URL (written by `starter lab up`)")
	}
}

func (l *Spec) validate(e *model.ValidationError, inv *model.Inventory) {
	for _, t := range []struct {
		field string
		v     model.Duration
	}{
		{"boot", l.Timings.Boot},
		{"reimage", l.Timings.Reimage},
		{"powerTransition", l.Timings.PowerTransition},
		{"drain", l.Timings.Drain},
		{"media", l.Timings.Media},
		{"firmware", l.Timings.Firmware},
		{"bmcReset", l.Timings.BMCReset},
	} {
		if t.v < 0 {
			e.Add("lab.timings."+t.field, t.v.String(), "must be a positive duration such as 3s")
		}
	}
	servers, racks := map[string]bool{}, map[string]bool{}
	for _, r := range inv.Servers() {
		servers[r.Server.Name] = true
	}
	for _, r := range inv.Racks {
		racks[r.Name] = true
	}
	if !redfish.KnownProfile(l.BMCProfile) {
		e.Add("lab.bmcProfile", l.BMCProfile, "unknown BMC profile: allowed profiles are "+redfish.AllowedProfiles())
	}
	for _, k := range targets(e, "lab.bmcProfiles.", l.BMCProfiles, servers, racks) {
		p := "lab.bmcProfiles." + k
		if v := l.BMCProfiles[k]; v == "" || !redfish.KnownProfile(v) {
			e.Add(p, v, "unknown BMC profile: allowed profiles are "+redfish.AllowedProfiles())
		}
	}
	for _, k := range targets(e, "lab.firmware.", l.Firmware, servers, racks) {
		for _, kind := range sortedKinds(l.Firmware[k]) {
			p := "lab.firmware." + k + "." + kind
			switch {
			case !slices.Contains(redfish.FirmwareKinds, kind):
				e.Add(p, kind, "unknown firmware kind: allowed are "+strings.Join(redfish.FirmwareKinds, ", "))
			case strings.TrimSpace(l.Firmware[k][kind]) == "":
				e.Add(p, "", "required: the version number the BMC starts with, e.g. 1.13.2")
			}
		}
	}
	l.validateTenantLoad(e, servers, racks)
	l.validateUnracked(e, inv, servers, racks)
	if l.NodeAgent != "" && l.NodeAgent != NodeAgentRelabel {
		e.Add("lab.nodeAgent", l.NodeAgent, `unknown node agent: allowed values are "`+NodeAgentRelabel+`" (an agent that relabels the node with the booted runtime version) or none (stock kubelets, the default)`)
	}
	for i, f := range l.Faults {
		p := "lab.faults[" + strconv.Itoa(i) + "]"
		if !servers[f.BMM] {
			e.Add(p+".bmm", f.BMM, "unknown BMM: name a server of this inventory")
		}
		if !f.Kind.Known() {
			e.Add(p+".kind", string(f.Kind), "unknown fault kind: allowed values are "+faults.Join(faults.All()))
		}
		if f.Rate < 0 || f.Rate > 1 {
			e.Add(p+".rate", strconv.FormatFloat(f.Rate, 'g', -1, 64), "must be between 0 and 1 (0 or unset: every time)")
		}
	}
}

// targets lists m's keys in order, each a rack or server of the inventory
// (others are refused under prefix+key).
func targets[V any](e *model.ValidationError, prefix string, m map[string]V, servers, racks map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !servers[k] && !racks[k] {
			e.Add(prefix+k, k, "unknown rack or BMM: name a rack or server of this inventory")
		}
	}
	return keys
}

// ProfileOf is the BMC profile of server name in rack: its own entry in
// bmcProfiles, else its rack's, else bmcProfile, else the default.
func (l *Spec) ProfileOf(rack, name string) string {
	if l == nil {
		return redfish.DefaultProfile
	}
	for _, k := range []string{name, rack} {
		if p, ok := l.BMCProfiles[k]; ok {
			return p
		}
	}
	if l.BMCProfile != "" {
		return l.BMCProfile
	}
	return redfish.DefaultProfile
}

func sortedKinds(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// FirmwareOf is the firmware server name in rack starts with: its rack's
// entry, overridden by its own (nil: the profile's versions).
func (l *Spec) FirmwareOf(rack, name string) map[string]string {
	if l == nil {
		return nil
	}
	out := map[string]string{}
	for _, k := range []string{rack, name} {
		for kind, v := range l.Firmware[k] {
			out[kind] = v
		}
	}
	return out
}
