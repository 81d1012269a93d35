package redfish

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

type doc = map[string]any

func link(uri string) doc { return doc{"@odata.id": uri} }

func collection(uri, typ, name string, members ...string) doc {
	ms := make([]doc, 0, len(members))
	for _, m := range members {
		ms = append(ms, link(m))
	}
	return doc{
		"@odata.id":           uri,
		"@odata.type":         "#" + typ + "." + typ,
		"@odata.context":      rootPath + "/$metadata#" + typ + "." + typ,
		"Name":                name,
		"Members":             ms,
		"Members@odata.count": len(ms),
	}
}

// uuidFor derives a stable UUID from the machine name, so a lab restart
// keeps identities.
func uuidFor(seed string) string {
	h := sha256.Sum256([]byte(seed))
	x := hex.EncodeToString(h[:16])
	return fmt.Sprintf("%s-%s-%s-%s-%s", x[0:8], x[8:12], x[12:16], x[16:20], x[20:32])
}

func (b *BMC) serviceRoot() doc {
	return doc{
		"@odata.id":      rootPath + "/",
		"@odata.type":    "#ServiceRoot.v1_11_0.ServiceRoot",
		"@odata.context": rootPath + "/$metadata#ServiceRoot.ServiceRoot",
		"Id":             "RootService",
		"Name":           "Root Service",
		"RedfishVersion": "1.15.0",
		"UUID":           uuidFor("bmc/" + b.cfg.BMM),
		"Product":        b.prof.Product,
		"Vendor":         b.prof.Vendor,
		"Systems":        link(systemsPath),
		"Managers":       link(managersPath),
		"SessionService": link(sessionServicePath),
		"AccountService": link(accountServicePath),
		"Tasks":          link(taskServicePath),
		"UpdateService":  link(updatePath),
		"Links":          doc{"Sessions": link(sessionsPath)},
		"ProtocolFeaturesSupported": doc{
			"ExpandQuery":     doc{"ExpandAll": false, "Levels": false, "Links": false, "NoLinks": false},
			"FilterQuery":     false,
			"SelectQuery":     false,
			"OnlyMemberQuery": false,
		},
	}
}

// systemLocked renders the System and its ETag, a digest of the
// representation, so any visible change invalidates a client's tag.
func (b *BMC) systemLocked() (doc, string) {
	ps := b.paths
	d := doc{
		"@odata.id":      ps.system,
		"@odata.type":    "#ComputerSystem.v1_20_0.ComputerSystem",
		"@odata.context": rootPath + "/$metadata#ComputerSystem.ComputerSystem",
		"Id":             b.prof.SystemID,
		"Name":           "System",
		"SystemType":     "Physical",
		"Manufacturer":   b.prof.Manufacturer,
		"Model":          b.prof.Model,
		"SerialNumber":   b.cfg.SerialNumber,
		"SKU":            b.cfg.SerialNumber,
		"HostName":       b.cfg.BMM,
		"UUID":           uuidFor("system/" + b.cfg.BMM),
		"BiosVersion":    b.partLocked(KindBIOS).shown(),
		"PowerState":     b.powerState(),
		"Status":         doc{"State": b.statusState(), "Health": b.health(), "HealthRollup": b.health()},
		"Boot": doc{
			"BootSourceOverrideEnabled":                        b.override.enabled,
			"BootSourceOverrideTarget":                         b.override.target,
			"BootSourceOverrideTarget@Redfish.AllowableValues": b.prof.BootTargets,
		},
		"ProcessorSummary":   doc{"Count": 2, "Model": "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz"},
		"MemorySummary":      doc{"TotalSystemMemoryGiB": 256},
		"EthernetInterfaces": link(ps.nics),
		"Links":              doc{"ManagedBy": []doc{link(ps.manager)}},
		"Actions": doc{
			"#ComputerSystem.Reset": doc{
				"target":                            ps.reset,
				"ResetType@Redfish.AllowableValues": b.prof.ResetTypes,
			},
		},
	}
	b.showBootMode(d["Boot"].(doc))
	if bp := b.bootProgress(); bp != "" {
		d["BootProgress"] = doc{"LastState": bp}
	}
	if b.prof.Helpful {
		d["OperatingSystem"] = link(ps.os)
	}
	switch {
	case b.prof.SystemMediaLink == "system" && ps.sysMedia != "":
		d["VirtualMedia"] = link(ps.sysMedia)
	case b.prof.SystemMediaLink == "manager" && ps.mgrMedia != "":
		d["VirtualMedia"] = link(ps.mgrMedia)
	}
	etag := b.etag(d)
	d["@odata.etag"] = etag
	return d, etag
}

// etag is a digest of the representation, so any visible change
// invalidates a client's tag; weak (W/"…") where the vendor's are.
func (b *BMC) etag(d doc) string {
	raw, _ := json.Marshal(d)
	sum := sha256.Sum256(raw)
	tag := `"` + hex.EncodeToString(sum[:8]) + `"`
	if b.prof.WeakETag {
		return "W/" + tag
	}
	return tag
}

func (b *BMC) nics() doc {
	if b.cfg.BootMAC == "" {
		return collection(b.paths.nics, "EthernetInterfaceCollection", "Ethernet Interfaces")
	}
	return collection(b.paths.nics, "EthernetInterfaceCollection", "Ethernet Interfaces", b.paths.nic)
}

func (b *BMC) nic() doc {
	return doc{
		"@odata.id":           b.paths.nic,
		"@odata.type":         "#EthernetInterface.v1_6_0.EthernetInterface",
		"Id":                  "NIC.Integrated.1-1-1",
		"Name":                "Integrated NIC 1 Port 1 Partition 1",
		"MACAddress":          b.cfg.BootMAC,
		"PermanentMACAddress": b.cfg.BootMAC,
		"LinkStatus":          "LinkUp",
		"SpeedMbps":           25000,
		"Status":              doc{"State": "Enabled", "Health": "OK"},
	}
}
