package firmware

import (
	"fmt"
	"regexp"
	"strings"
)

// Where a component's version is read (Component.Source).
const (
	// SourceInventory: the UpdateService/FirmwareInventory members the
	// component's inventory pattern matches.
	SourceInventory = "inventory"
	// SourceProperty: the standard property of the resource the
	// component belongs to (PropertyOf), as Ironic's redfish firmware
	// interface reads it; what a BMC without a FirmwareInventory shows
	// (sushy-tools, libvirt rigs).
	SourceProperty = "property"
)

// Sources are the allowed Component.Source values.
var Sources = []string{SourceInventory, SourceProperty}

// propertyKinds are the kinds with a standard version property, in
// Kinds' order; propertyOf names it.
var (
	propertyKinds = []string{KindBIOS, KindNIC, KindStorage, KindBMC}
	propertyOf    = map[string]string{
		KindBIOS:    "System.BiosVersion",
		KindNIC:     "NetworkAdapter Controllers[].FirmwarePackageVersion",
		KindStorage: "StorageController FirmwareVersion",
		KindBMC:     "Manager.FirmwareVersion",
	}
)

// PropertyOf names the standard property a kind's version is read from
// where the BMC has no FirmwareInventory; false for a kind with none
// (other).
func PropertyOf(kind string) (string, bool) {
	p, ok := propertyOf[kind]
	return p, ok
}

// HasProperty reports whether kind has a standard version property.
func HasProperty(kind string) bool {
	_, ok := propertyOf[kind]
	return ok
}

func propertyList() string {
	parts := make([]string, 0, len(propertyKinds))
	for _, k := range propertyKinds {
		parts = append(parts, k+" → "+propertyOf[k])
	}
	return strings.Join(parts, ", ")
}

// Property is a version a standard resource shows: the System's
// BiosVersion, the Manager's FirmwareVersion, a network adapter
// controller's FirmwarePackageVersion, a storage controller's
// FirmwareVersion.
type Property struct {
	Kind string `json:"kind"`
	// Source says where it was read, as reports show it
	// ("System.BiosVersion", "Manager.FirmwareVersion",
	// "NetworkAdapters/NIC.Slot.1.Controllers[0].FirmwarePackageVersion").
	Source string `json:"source"`
	// ID and Name are the resource's (the System, the Manager, the
	// adapter, the controller): what a nic or storage component's
	// inventory pattern picks by.
	ID      string `json:"id,omitempty"`
	Name    string `json:"name,omitempty"`
	Version string `json:"version"`
}

// SourceFor is where c's version is read on s: the baseline's choice,
// else the FirmwareInventory where the BMC has one, else the standard
// property. The ApplyFirmware activity proves an update by the same
// source it was judged by.
func SourceFor(c Component, s Server) string {
	switch {
	case c.Source != "":
		return c.Source
	case s.NoInventory:
		return SourceProperty
	}
	return SourceInventory
}

// judgeProperty is c against the standard properties of its kind: a row
// per resource read (a nic or storage component: those its inventory
// pattern picks, every one without a pattern), one unknown row when none.
func judgeProperty(c Component, s Server) []Row {
	what, ok := PropertyOf(c.Kind)
	if !ok {
		return []Row{unknownRow(c, fmt.Sprintf("the BMC has no FirmwareInventory (%s) and kind %s has no standard version property to read instead",
			s.InventoryWhy, c.Kind))}
	}
	var re *regexp.Regexp
	if c.Inventory != "" && (c.Kind == KindNIC || c.Kind == KindStorage) {
		var err error
		if re, err = regexp.Compile(c.Inventory); err != nil {
			return []Row{unknownRow(c, fmt.Sprintf("inventory %q is not a regular expression", c.Inventory))}
		}
	}
	var rows []Row
	for _, p := range s.Properties {
		if p.Kind != c.Kind || re != nil && !re.MatchString(p.ID) && !re.MatchString(p.Name) {
			continue
		}
		st, why := Compare(p.Version, c.Minimum)
		rows = append(rows, Row{Component: c.Name, Kind: c.Kind, Name: p.Name, Source: p.Source,
			Current: p.Version, Minimum: c.Minimum, Status: st, Why: why})
	}
	if len(rows) > 0 {
		return rows
	}
	why := "the BMC shows no " + what
	if re != nil {
		why = fmt.Sprintf("no resource showing %s matches %q by Id or Name", what, c.Inventory)
	}
	if e := s.PropertyErrors[c.Kind]; e != "" {
		why += " (" + e + ")"
	}
	return []Row{unknownRow(c, why)}
}

func unknownRow(c Component, why string) Row {
	return Row{Component: c.Name, Kind: c.Kind, Minimum: c.Minimum, Status: Unknown, Why: why}
}
