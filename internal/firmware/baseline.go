package firmware

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Baseline is the firmware a runtime version requires, declared next to
// its image (the inventory's images.firmware.<version>): one entry per
// kind of server, the first entry whose match fits a server applies.
type Baseline []Entry

// Entry is the firmware for one vendor/model.
type Entry struct {
	Match      Match       `json:"match"`
	Components []Component `json:"components"`
}

// Match says which servers an entry covers, by what their System shows.
type Match struct {
	// Manufacturer is System.Manufacturer ("Dell Inc.", "HPE",
	// "Supermicro", "Lenovo"), compared ignoring case.
	Manufacturer string `json:"manufacturer"`
	// Model is a glob (path.Match: *, ?, [...]) over System.Model,
	// ignoring case; "" covers every model of the manufacturer.
	Model string `json:"model,omitempty"`
}

// Component is one piece of firmware the baseline requires.
type Component struct {
	// Name is how the baseline and its reports call the component
	// ("BIOS", "iDRAC", "NIC.Integrated.1"); unique within an entry.
	Name string `json:"name"`
	// Kind says what updating it disturbs (Kinds): a bios or nic update
	// takes effect at a host reset, a bmc update resets the BMC itself.
	Kind string `json:"kind"`
	// Inventory is a regular expression matched against the Id and the
	// Name of each UpdateService/FirmwareInventory member (iDRAC:
	// "Installed-159-1.13.2__BIOS.Setup.1-1" / "BIOS"; iLO: "1" / "System
	// ROM"; Supermicro: "BIOS" / "BIOS"). Every member it matches must be
	// at the minimum (a NIC lists one member per port). Where the version
	// is read from a property (Source), it picks the nic and storage
	// resources by their Id and Name (none given: every one); the System
	// and the Manager are one each. Required unless Source is property.
	Inventory string `json:"inventory"`
	// Minimum is the oldest acceptable version (Compare).
	Minimum string `json:"minimum"`
	// Image is the update package's URL (http or https).
	Image string `json:"image"`
	// Apply says how the image is applied.
	Apply Apply `json:"apply"`
	// Source is where the component's version is read (Sources): the
	// FirmwareInventory members Inventory matches, or the standard
	// property of the resource the component belongs to (PropertyOf).
	// "": the inventory where the BMC has one, else the property.
	Source string `json:"source,omitempty"`
}

// Apply is how a vendor takes an update.
type Apply struct {
	// Method: SimpleUpdate (the BMC fetches Image from its ImageURI) or
	// MultipartPush (the worker fetches Image and pushes it to the BMC's
	// MultipartHttpPushUri, for BMCs that cannot fetch).
	Method string `json:"method"`
	// ApplyTime: Immediate (the BMC installs at once) or OnReset (staged,
	// installed at the next host reset: iDRAC's job queue). Default
	// Immediate.
	ApplyTime string `json:"applyTime,omitempty"`
	// HostOff: the host must be powered off before the update starts
	// (Supermicro BIOS: bmclib's install steps begin with power-off-host).
	HostOff bool `json:"hostOff,omitempty"`
}

// Kinds are the component kinds, in the order an update applies them:
// the BMC last, since it resets itself and is away for a while.
var Kinds = []string{KindBIOS, KindNIC, KindStorage, KindOther, KindBMC}

// KindBMC is the BMC's own firmware: updating it resets the BMC, not the
// host. The host's kinds are named for where their standard version
// property lives (PropertyOf); other has none.
const (
	KindBMC     = "bmc"
	KindBIOS    = "bios"
	KindNIC     = "nic"
	KindStorage = "storage"
	KindOther   = "other"
)

// Methods and ApplyTimes are the allowed Apply values.
var (
	Methods    = []string{MethodSimpleUpdate, MethodMultipartPush}
	ApplyTimes = []string{ApplyImmediate, ApplyOnReset}
)

// Apply values (DMTF UpdateService: SimpleUpdate, MultipartHttpPushUri,
// @Redfish.OperationApplyTime).
const (
	MethodSimpleUpdate  = "SimpleUpdate"
	MethodMultipartPush = "MultipartPush"
	ApplyImmediate      = "Immediate"
	ApplyOnReset        = "OnReset"
)

// Problem is one thing wrong with a baseline: where (relative to the
// baseline), what was given, and what is allowed.
type Problem struct{ Field, Value, Message string }

// Validate lists every problem of b at once.
func (b Baseline) Validate() []Problem {
	var out []Problem
	add := func(field, value, format string, args ...any) {
		out = append(out, Problem{field, value, fmt.Sprintf(format, args...)})
	}
	if len(b) == 0 {
		add("", "", "list at least one entry {match, components}, or leave the version out")
	}
	for i, e := range b {
		at := fmt.Sprintf("[%d]", i)
		if strings.TrimSpace(e.Match.Manufacturer) == "" {
			add(at+".match.manufacturer", "", "required: System.Manufacturer as the BMC shows it, e.g. \"Dell Inc.\", HPE, Supermicro")
		}
		if _, err := path.Match(e.Match.Model, ""); err != nil {
			add(at+".match.model", e.Match.Model, "must be a glob over System.Model (*, ?, [...]): %v", err)
		}
		if len(e.Components) == 0 {
			add(at+".components", "", "list at least one component")
		}
		seen := map[string]bool{}
		for j, c := range e.Components {
			cat := fmt.Sprintf("%s.components[%d]", at, j)
			switch {
			case strings.TrimSpace(c.Name) == "":
				add(cat+".name", "", "required: the component's name in reports, e.g. BIOS, iDRAC, NIC.Integrated.1")
			case seen[strings.ToLower(c.Name)]:
				add(cat+".name", c.Name, "named twice in this entry: names must be unique")
			}
			seen[strings.ToLower(c.Name)] = true
			if !slices.Contains(Kinds, c.Kind) {
				add(cat+".kind", c.Kind, "allowed: %s", strings.Join(Kinds, ", "))
			}
			switch {
			case c.Source != "" && !slices.Contains(Sources, c.Source):
				add(cat+".source", c.Source, "allowed: %s (default: %s where the BMC has a FirmwareInventory, else %s)",
					strings.Join(Sources, ", "), SourceInventory, SourceProperty)
			case c.Source == SourceProperty && slices.Contains(Kinds, c.Kind) && !HasProperty(c.Kind):
				add(cat+".source", c.Source, "kind %s has no standard version property (only %s have: %s); use %s or leave source out",
					c.Kind, strings.Join(propertyKinds, ", "), propertyList(), SourceInventory)
			}
			if c.Inventory == "" && c.Source != SourceProperty {
				add(cat+".inventory", "", "required: a regular expression over FirmwareInventory member Ids and Names, e.g. ^BIOS$")
			} else if _, err := regexp.Compile(c.Inventory); err != nil {
				add(cat+".inventory", c.Inventory, "not a regular expression: %v", err)
			}
			if c.Minimum == "" {
				add(cat+".minimum", "", "required: the oldest acceptable version, e.g. 2.78 or 7.00.00.171")
			} else if _, err := ParseVersion(c.Minimum); err != nil {
				add(cat+".minimum", c.Minimum, "%v", err)
			}
			if u, err := url.Parse(c.Image); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
				add(cat+".image", c.Image, "must be an absolute http or https URL of the update package")
			}
			if !slices.Contains(Methods, c.Apply.Method) {
				add(cat+".apply.method", c.Apply.Method, "allowed: %s", strings.Join(Methods, ", "))
			}
			if c.Apply.HostOff && c.Kind == KindBMC {
				// The host would stay off: a BMC's update starts no host.
				add(cat+".apply.hostOff", "true", "only for a host component (%s): the %s kind updates the BMC and never starts the host again",
					strings.Join(Kinds[:len(Kinds)-1], ", "), KindBMC)
			}
			if c.Apply.ApplyTime != "" && !slices.Contains(ApplyTimes, c.Apply.ApplyTime) {
				add(cat+".apply.applyTime", c.Apply.ApplyTime, "allowed: %s (default %s)", strings.Join(ApplyTimes, ", "), ApplyImmediate)
			}
		}
	}
	return out
}

// For returns the first entry of b whose match fits a server, and false
// when none does.
func (b Baseline) For(manufacturer, model string) (Entry, bool) {
	for _, e := range b {
		if e.Match.fits(manufacturer, model) {
			return e, true
		}
	}
	return Entry{}, false
}

func (m Match) fits(manufacturer, model string) bool {
	if !strings.EqualFold(strings.TrimSpace(m.Manufacturer), strings.TrimSpace(manufacturer)) {
		return false
	}
	if m.Model == "" {
		return true
	}
	ok, err := path.Match(strings.ToLower(m.Model), strings.ToLower(strings.TrimSpace(model)))
	return err == nil && ok
}

// String is the match as reports show it.
func (m Match) String() string {
	if m.Model == "" {
		return m.Manufacturer + " (any model)"
	}
	return m.Manufacturer + " " + m.Model
}
