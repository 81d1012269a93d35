package redfish

import (
	"fmt"
	"maps"
	"regexp"
	"strings"
)

// The machine's firmware, as UpdateService/FirmwareInventory shows it
// (DMTF SoftwareInventory: Id, Name, Version, Updateable, RelatedItem).
// Ids follow the vendor: iDRAC "Installed-<component>-<version>__<FQDD>"
// beside "Previous-…" (the image it would roll back to; both seen in
// Dell's iDRAC Redfish scripts and payloads), iLO small integers, the
// others the component's name ("BIOS", "BMC": Supermicro X12).

// Firmware kinds the lab plays; a baseline's component kinds.
const (
	KindBIOS    = "bios"
	KindBMC     = "bmc"
	KindNIC     = "nic"
	KindStorage = "storage"
)

// FirmwareKinds lists the kinds a lab BMC has firmware of.
var FirmwareKinds = []string{KindBIOS, KindBMC, KindNIC, KindStorage}

// fwPart is one piece of firmware of the machine.
type fwPart struct {
	kind     string
	id       string // the member id (Dell: the component number)
	fqdd     string // Dell's device name, "" elsewhere
	name     string
	format   string // how the version shows: %s is the number
	version  string // the running version (the number)
	previous string // Dell: the version before the last update
	// pending: flashed, active at the next host start (host firmware is
	// read by the host at POST).
	pending string
	related string // the URI of what it runs on
}

// shown is the version as the vendor writes it.
func (p *fwPart) shown() string { return fmt.Sprintf(p.format, p.version) }

// memberID is the FirmwareInventory member id of the running version.
func (p *fwPart) memberID(dell bool) string {
	if dell {
		return "Installed-" + p.id + "-" + p.shown() + "__" + p.fqdd
	}
	return p.id
}

var shownNumber = regexp.MustCompile(`^([vV]?)(\d+(?:[._-]\d+)+)$`)

// splitShown turns a vendor's version string into a format and the number
// in it ("U46 v1.64 (08/11/2022)" → "U46 v%s (08/11/2022)", "1.64"); a
// string without one ("AFE120J") is all number: an update replaces it.
func splitShown(s string) (format, number string) {
	tokens := strings.Fields(s)
	for i, t := range tokens {
		if m := shownNumber.FindStringSubmatch(t); m != nil {
			tokens[i] = m[1] + "%s"
			return strings.Join(tokens, " "), m[2]
		}
	}
	return "%s", s
}

// firmwareFor lays out the profile's firmware; versions, by kind, override
// the profile's numbers (Config.Firmware).
func firmwareFor(p Profile, ps paths, versions map[string]string) []*fwPart {
	biosF, bios := splitShown(p.BiosVersion)
	bmcF, bmc := splitShown(p.Firmware)
	parts := []*fwPart{
		{kind: KindBIOS, id: "BIOS", name: "BIOS", format: biosF, version: bios, related: ps.system},
		{kind: KindBMC, id: "BMC", name: p.ManagerModel + " firmware", format: bmcF, version: bmc, related: ps.manager},
	}
	switch p.FirmwareIDs {
	case "dell":
		parts[0].id, parts[0].fqdd = "159", "BIOS.Setup.1-1"
		parts[1].id, parts[1].fqdd, parts[1].name = "25227", "iDRAC.Embedded.1-1", "Integrated Dell Remote Access Controller"
	case "hpe":
		parts[0].id, parts[0].name = "2", "System ROM"
		parts[1].id, parts[1].name = "1", p.ManagerModel
	}
	for _, x := range []struct {
		kind, shown, id, name, related string
		dell                           [3]string // component number, FQDD, name
		hpe                            [2]string // id, name
	}{
		{KindNIC, p.NICFirmware, "NIC", "Ethernet adapter", ps.nic,
			[3]string{"14", "NIC.Integrated.1-1-1", "Broadcom Adv. Dual 25Gb Ethernet - NIC.Integrated.1-1-1"},
			[2]string{"3", "HPE Ethernet 10/25Gb 2-port 640FLR-SFP28 Adptr"}},
		{KindStorage, p.StorageFirmware, "Storage", "Storage controller", ps.system,
			[3]string{"101560", "RAID.SL.3-1", "PERC H755 Front"}, [2]string{"4", "HPE Smart Array P408i-a SR Gen10"}},
	} {
		if x.shown == "" {
			continue
		}
		f, v := splitShown(x.shown)
		part := &fwPart{kind: x.kind, id: x.id, name: x.name, format: f, version: v, related: x.related}
		switch p.FirmwareIDs {
		case "dell":
			part.id, part.fqdd, part.name = x.dell[0], x.dell[1], x.dell[2]
		case "hpe":
			part.id, part.name = x.hpe[0], x.hpe[1]
		}
		parts = append(parts, part)
	}
	for _, part := range parts {
		if v := versions[part.kind]; v != "" {
			part.version = v
		}
	}
	return parts
}

// partLocked finds the machine's part of kind.
func (b *BMC) partLocked(kind string) *fwPart {
	for _, p := range b.fw {
		if p.kind == kind {
			return p
		}
	}
	return nil
}

// FirmwareVersions maps each kind to the running version's number, for
// tests and the lab's checks.
func (b *BMC) FirmwareVersions() map[string]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]string{}
	for _, p := range b.fw {
		out[p.kind] = p.version
	}
	return out
}

// UpdateRequestsByKind counts the update requests that named a package,
// refused or not, by the kind its file name says it installs (bios, bmc,
// nic, storage; "other" for a package the lab cannot read): tests check
// exactly-once per component.
func (b *BMC) UpdateRequestsByKind() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.kindRequests)
}

func (b *BMC) firmwareInventoryLocked() doc {
	dell := b.prof.FirmwareIDs == "dell"
	var members []string
	for _, p := range b.fw {
		members = append(members, firmwarePath+"/"+p.memberID(dell))
	}
	if dell {
		for _, p := range b.fw {
			if p.previous != "" {
				members = append(members, firmwarePath+"/Previous-"+p.id+"-"+fmt.Sprintf(p.format, p.previous)+"__"+p.fqdd)
			}
		}
	}
	return collection(firmwarePath, "SoftwareInventoryCollection", "Firmware Inventory Collection", members...)
}

// firmwareMemberLocked renders the member with id, or nil.
func (b *BMC) firmwareMemberLocked(id string) doc {
	dell := b.prof.FirmwareIDs == "dell"
	for _, p := range b.fw {
		version, state := "", "Enabled"
		switch {
		case id == p.memberID(dell):
			version = p.shown()
		case dell && p.previous != "" && id == "Previous-"+p.id+"-"+fmt.Sprintf(p.format, p.previous)+"__"+p.fqdd:
			version, state = fmt.Sprintf(p.format, p.previous), "Disabled"
		default:
			continue
		}
		return doc{
			"@odata.id": firmwarePath + "/" + id, "@odata.type": "#SoftwareInventory.v1_10_0.SoftwareInventory",
			"Id": id, "Name": p.name, "Version": version, "Updateable": true,
			"SoftwareId":  p.id,
			"RelatedItem": []doc{link(p.related)}, "RelatedItem@odata.count": 1,
			"Status": doc{"State": state, "Health": "OK"},
		}
	}
	return nil
}
