package redfish

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Resource URIs, iDRAC-shaped.
const (
	rootPath           = "/redfish/v1"
	systemsPath        = rootPath + "/Systems"
	systemPath         = systemsPath + "/System.Embedded.1"
	resetPath          = systemPath + "/Actions/ComputerSystem.Reset"
	nicsPath           = systemPath + "/EthernetInterfaces"
	nicPath            = nicsPath + "/NIC.Integrated.1-1-1"
	osPath             = systemPath + "/OperatingSystem"
	sysMediaPath       = systemPath + "/VirtualMedia"
	sysCDPath          = sysMediaPath + "/1" // newer iDRAC: media under the System
	managersPath       = rootPath + "/Managers"
	managerPath        = managersPath + "/iDRAC.Embedded.1"
	mgrMediaPath       = managerPath + "/VirtualMedia"
	mgrCDPath          = mgrMediaPath + "/CD" // older iDRAC: media under the Manager
	updatePath         = rootPath + "/UpdateService"
	inventoryPath      = updatePath + "/SoftwareInventory"
	osImagePath        = inventoryPath + "/OS"
	sessionServicePath = rootPath + "/SessionService"
	sessionsPath       = sessionServicePath + "/Sessions"
	taskServicePath    = rootPath + "/TaskService"
	tasksPath          = taskServicePath + "/Tasks"
	insertAction       = "/Actions/VirtualMedia.InsertMedia"
	ejectAction        = "/Actions/VirtualMedia.EjectMedia"
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
		"UUID":           uuidFor("idrac/" + b.cfg.BMM),
		"Product":        "Integrated Dell Remote Access Controller",
		"Vendor":         "Dell",
		"Systems":        link(systemsPath),
		"Managers":       link(managersPath),
		"SessionService": link(sessionServicePath),
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
	d := doc{
		"@odata.id":      systemPath,
		"@odata.type":    "#ComputerSystem.v1_20_0.ComputerSystem",
		"@odata.context": rootPath + "/$metadata#ComputerSystem.ComputerSystem",
		"Id":             "System.Embedded.1",
		"Name":           "System",
		"SystemType":     "Physical",
		"Manufacturer":   "Dell Inc.",
		"Model":          "PowerEdge R650",
		"SerialNumber":   b.cfg.SerialNumber,
		"SKU":            b.cfg.SerialNumber,
		"HostName":       b.cfg.BMM,
		"UUID":           uuidFor("system/" + b.cfg.BMM),
		"BiosVersion":    "1.13.2",
		"PowerState":     b.powerState(),
		"Status":         doc{"State": b.statusState(), "Health": b.health(), "HealthRollup": b.health()},
		"BootProgress":   doc{"LastState": b.bootProgress()},
		"Boot": doc{
			"BootSourceOverrideEnabled":                        b.override.enabled,
			"BootSourceOverrideTarget":                         b.override.target,
			"BootSourceOverrideMode":                           b.override.mode,
			"BootSourceOverrideTarget@Redfish.AllowableValues": overrideTargets,
		},
		"ProcessorSummary":   doc{"Count": 2, "Model": "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz"},
		"MemorySummary":      doc{"TotalSystemMemoryGiB": 256},
		"EthernetInterfaces": link(nicsPath),
		"OperatingSystem":    link(osPath),
		"Links":              doc{"ManagedBy": []doc{link(managerPath)}},
		"Actions": doc{
			"#ComputerSystem.Reset": doc{
				"target":                            resetPath,
				"ResetType@Redfish.AllowableValues": resetTypes,
			},
		},
	}
	if !b.cfg.ManagerVirtualMediaOnly {
		d["VirtualMedia"] = link(sysMediaPath)
	}
	raw, _ := json.Marshal(d)
	sum := sha256.Sum256(raw)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	d["@odata.etag"] = etag
	return d, etag
}

var overrideTargets = []string{"None", "Pxe", "Cd", "Hdd", "BiosSetup"}

func (b *BMC) nics() doc {
	if b.cfg.BootMAC == "" {
		return collection(nicsPath, "EthernetInterfaceCollection", "Ethernet Interfaces")
	}
	return collection(nicsPath, "EthernetInterfaceCollection", "Ethernet Interfaces", nicPath)
}

func (b *BMC) nic() doc {
	return doc{
		"@odata.id":           nicPath,
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

// operatingSystemLocked links the installed OS image, the standard place
// (OperatingSystem.Links.SoftwareImage → SoftwareInventory.Version) where
// clients read which version a machine runs.
func (b *BMC) operatingSystemLocked() doc {
	state := "StandbyOffline"
	switch {
	case b.reimageFailed:
		state = "Absent"
	case b.phase == phaseRunning:
		state = "Enabled"
	case b.phase == phaseBooting:
		state = "Starting"
	case b.phase == phaseReimaging:
		state = "Updating"
	}
	return doc{
		"@odata.id":   osPath,
		"@odata.type": "#OperatingSystem.v1_0_2.OperatingSystem",
		"Id":          "OperatingSystem",
		"Name":        "Operating System",
		"Type":        "Linux",
		"Kernel":      doc{"Name": "Linux"},
		"Status":      doc{"State": state, "Health": b.health()},
		"Links":       doc{"SoftwareImage": link(osImagePath)},
	}
}

func (b *BMC) osImageLocked() doc {
	status := doc{"State": "Enabled", "Health": "OK"}
	switch {
	case b.phase == phaseReimaging:
		status = doc{"State": "Updating", "Health": "OK"}
	case b.reimageFailed:
		status = doc{"State": "UnavailableOffline", "Health": "Critical"}
	}
	return doc{
		"@odata.id":   osImagePath,
		"@odata.type": "#SoftwareInventory.v1_10_0.SoftwareInventory",
		"Id":          "OS",
		"Name":        "rackroll runtime",
		"SoftwareId":  "rackroll-runtime",
		"Version":     b.version,
		"Updateable":  false,
		"Status":      status,
	}
}

func (b *BMC) manager() doc {
	return doc{
		"@odata.id":       managerPath,
		"@odata.type":     "#Manager.v1_17_0.Manager",
		"@odata.context":  rootPath + "/$metadata#Manager.Manager",
		"Id":              "iDRAC.Embedded.1",
		"Name":            "Manager",
		"ManagerType":     "BMC",
		"Model":           "15G Monolithic",
		"FirmwareVersion": "7.00.30.00",
		"UUID":            uuidFor("idrac/" + b.cfg.BMM),
		"PowerState":      "On",
		"Status":          doc{"State": "Enabled", "Health": "OK"},
		"VirtualMedia":    link(mgrMediaPath),
		"Links":           doc{"ManagerForServers": []doc{link(systemPath)}},
	}
}

// cdLocked renders the drive at uri; both locations show the same state.
func (b *BMC) cdLocked(uri, id string) doc {
	image, name := any(nil), any(nil)
	connected := "NotConnected"
	if b.media.image != "" {
		image = redactURL(b.media.image)
		name = pathBase(b.media.image)
		connected = "URI"
	}
	proto := any(nil)
	if b.media.protocol != "" {
		proto = b.media.protocol
	}
	return doc{
		"@odata.id":            uri,
		"@odata.type":          "#VirtualMedia.v1_6_0.VirtualMedia",
		"Id":                   id,
		"Name":                 "Virtual CD",
		"MediaTypes":           []string{"CD", "DVD"},
		"Image":                image,
		"ImageName":            name,
		"Inserted":             b.media.inserted,
		"WriteProtected":       b.media.writeProtected || b.media.image == "",
		"ConnectedVia":         connected,
		"TransferMethod":       "Stream",
		"TransferProtocolType": proto,
		"UserName":             nil,
		"Password":             nil,
		"Actions": doc{
			"#VirtualMedia.InsertMedia": doc{
				"target": uri + insertAction,
				"TransferProtocolType@Redfish.AllowableValues": []string{"HTTP", "HTTPS", "NFS", "CIFS"},
			},
			"#VirtualMedia.EjectMedia": doc{"target": uri + ejectAction},
		},
	}
}

func (b *BMC) sessionService() doc {
	return doc{
		"@odata.id":      sessionServicePath,
		"@odata.type":    "#SessionService.v1_1_8.SessionService",
		"Id":             "SessionService",
		"Name":           "Session Service",
		"ServiceEnabled": true,
		"SessionTimeout": 1800,
		"Sessions":       link(sessionsPath),
	}
}

func sessionDoc(s *session) doc {
	return doc{
		"@odata.id":   sessionsPath + "/" + s.id,
		"@odata.type": "#Session.v1_3_0.Session",
		"Id":          s.id,
		"Name":        "User Session " + s.id,
		"UserName":    s.user,
		"Password":    nil,
	}
}

func taskDoc(t *task) doc {
	uri := tasksPath + "/" + t.id
	d := doc{
		"@odata.id":   uri,
		"@odata.type": "#Task.v1_7_0.Task",
		"Id":          t.id,
		"Name":        t.name,
		"TaskState":   t.state,
		"TaskStatus":  "OK",
		"TaskMonitor": uri,
		"StartTime":   t.started.UTC().Format(time.RFC3339),
		"Payload":     doc{"TargetUri": t.target, "HttpOperation": "POST", "JsonBody": jsonString(t.payload)},
	}
	pct := 0
	switch t.state {
	case taskCompleted:
		pct = 100
	case taskException:
		d["TaskStatus"] = "Critical"
	case taskCancelled:
		d["TaskStatus"] = "Warning"
	}
	d["PercentComplete"] = pct
	if t.done() {
		d["EndTime"] = t.ended.UTC().Format(time.RFC3339)
	}
	if t.message != "" {
		sev := d["TaskStatus"]
		d["Messages"] = []doc{{"MessageId": "TaskEvent.1.0." + taskMessageID(t.state), "Message": t.message, "Severity": sev, "MessageSeverity": sev}}
	}
	return d
}

func taskMessageID(state string) string {
	switch state {
	case taskCompleted:
		return "TaskCompletedOK"
	case taskException:
		return "TaskAborted"
	case taskCancelled:
		return "TaskCancelled"
	}
	return "TaskStarted"
}

func jsonString(v any) string {
	if v == nil {
		return ""
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}
