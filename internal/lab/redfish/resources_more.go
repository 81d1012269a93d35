package redfish

import (
	"encoding/json"
	"strings"
	"time"
)

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
	d := doc{
		"@odata.id":       b.paths.manager,
		"@odata.type":     "#Manager.v1_17_0.Manager",
		"@odata.context":  rootPath + "/$metadata#Manager.Manager",
		"Id":              b.prof.ManagerID,
		"Name":            "Manager",
		"ManagerType":     "BMC",
		"Model":           b.prof.ManagerModel,
		"FirmwareVersion": b.partLocked(KindBMC).shown(),
		"UUID":            uuidFor("bmc/" + b.cfg.BMM),
		"PowerState":      "On",
		"Status":          doc{"State": "Enabled", "Health": "OK"},
		"Links":           doc{"ManagerForServers": []doc{link(b.paths.system)}},
	}
	if b.paths.mgrMedia != "" {
		d["VirtualMedia"] = link(b.paths.mgrMedia)
	}
	return d
}

// inventory lists the firmware (and, helpful only, the OS image).
func (b *BMC) inventory() doc {
	members := []string{biosImagePath, bmcImagePath}
	if b.prof.Helpful {
		members = append(members, osImagePath)
	}
	return collection(inventoryPath, "SoftwareInventoryCollection", "Software Inventory Collection", members...)
}

func (b *BMC) firmwareImage(uri string) doc {
	p := b.partLocked(KindBIOS)
	if uri == bmcImagePath {
		p = b.partLocked(KindBMC)
	}
	return doc{
		"@odata.id": uri, "@odata.type": "#SoftwareInventory.v1_10_0.SoftwareInventory",
		"Id": strings.ToUpper(p.kind), "Name": p.name, "Version": p.shown(), "Updateable": true,
		"Status": doc{"State": "Enabled", "Health": "OK"},
	}
}

// slotDoc renders a virtual media slot holding m.
func (b *BMC) slotDoc(s slotRef, m media) doc {
	image, name := any(nil), any(nil)
	connected := "NotConnected"
	if m.image != "" {
		connected = "URI"
	}
	if shown, n := b.prof.shownImage(m, b.clk.Now()); shown != "" || n != "" {
		image, name = nullable(shown), nullable(n)
	}
	proto := any(nil)
	if m.protocol != "" {
		proto = m.protocol
	}
	method := "Stream"
	if s.Upload {
		method, connected = "Upload", "Applet"
	}
	d := doc{
		"@odata.id":            s.uri,
		"@odata.type":          "#VirtualMedia.v1_6_0.VirtualMedia",
		"Id":                   s.ID,
		"Name":                 s.Name,
		"MediaTypes":           s.MediaTypes,
		"Image":                image,
		"ImageName":            name,
		"Inserted":             m.inserted,
		"WriteProtected":       m.writeProtected || m.image == "",
		"ConnectedVia":         connected,
		"TransferMethod":       method,
		"TransferProtocolType": proto,
		"UserName":             nil,
		"Password":             nil,
	}
	if !s.NoInsertAction && !s.Upload {
		d["Actions"] = doc{
			"#VirtualMedia.InsertMedia": doc{
				"target": s.uri + insertAction,
				"TransferProtocolType@Redfish.AllowableValues": []string{"HTTP", "HTTPS", "NFS", "CIFS"},
			},
			"#VirtualMedia.EjectMedia": doc{"target": s.uri + ejectAction},
		}
	}
	return d
}

func (b *BMC) sessionService() doc {
	return doc{
		"@odata.id":      sessionServicePath,
		"@odata.type":    "#SessionService.v1_1_8.SessionService",
		"Id":             "SessionService",
		"Name":           "Session Service",
		"ServiceEnabled": true,
		"SessionTimeout": int(b.prof.SessionTimeout / time.Second),
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
	case taskRunning:
		if t.progress != nil {
			pct = t.progress()
		}
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

// nullable renders "" as JSON null.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
