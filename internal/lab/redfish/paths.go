package redfish

import "strings"

// Standard URIs, the same on every vendor.
const (
	rootPath           = "/redfish/v1"
	systemsPath        = rootPath + "/Systems"
	managersPath       = rootPath + "/Managers"
	updatePath         = rootPath + "/UpdateService"
	inventoryPath      = updatePath + "/SoftwareInventory"
	osImagePath        = inventoryPath + "/OS"
	biosImagePath      = inventoryPath + "/BIOS"
	bmcImagePath       = inventoryPath + "/BMC"
	firmwarePath       = updatePath + "/FirmwareInventory"
	simpleUpdatePath   = updatePath + "/Actions/UpdateService.SimpleUpdate"
	pushPath           = updatePath + "/MultipartUpload"
	sessionServicePath = rootPath + "/SessionService"
	sessionsPath       = sessionServicePath + "/Sessions"
	taskServicePath    = rootPath + "/TaskService"
	tasksPath          = taskServicePath + "/Tasks"
	insertAction       = "/Actions/VirtualMedia.InsertMedia"
	ejectAction        = "/Actions/VirtualMedia.EjectMedia"
	resetAction        = "/Actions/ComputerSystem.Reset"
)

// The helpful profile's URIs (iDRAC-shaped), which tests address directly.
const (
	systemPath   = systemsPath + "/System.Embedded.1"
	resetPath    = systemPath + resetAction
	osPath       = systemPath + "/OperatingSystem"
	sysMediaPath = systemPath + "/VirtualMedia"
	sysCDPath    = sysMediaPath + "/1"
	managerPath  = managersPath + "/iDRAC.Embedded.1"
	mgrMediaPath = managerPath + "/VirtualMedia"
	mgrCDPath    = mgrMediaPath + "/CD"
)

// paths are one BMC's URIs, from its profile.
type paths struct {
	system, reset, nics, nic, os string
	manager                      string
	sysMedia, mgrMedia           string // "" when the profile has no collection there
}

func pathsFor(p Profile) paths {
	sys := systemsPath + "/" + p.SystemID
	mgr := managersPath + "/" + p.ManagerID
	ps := paths{system: sys, reset: sys + resetAction, nics: sys + "/EthernetInterfaces",
		nic: sys + "/EthernetInterfaces/NIC.Integrated.1-1-1", os: sys + "/OperatingSystem", manager: mgr}
	if p.SystemMedia != nil {
		ps.sysMedia = sys + "/VirtualMedia"
	}
	if p.ManagerMedia != nil {
		ps.mgrMedia = mgr + "/VirtualMedia"
	}
	return ps
}

// slotRef is a slot at its URI.
type slotRef struct {
	Slot
	uri string
}

// slots lists every slot with its URI, System's first, each collection in
// its order.
func (b *BMC) slots() []slotRef {
	var out []slotRef
	for _, s := range b.prof.SystemMedia {
		out = append(out, slotRef{s, b.paths.sysMedia + "/" + s.ID})
	}
	for _, s := range b.prof.ManagerMedia {
		out = append(out, slotRef{s, b.paths.mgrMedia + "/" + s.ID})
	}
	return out
}

// slotAt finds the slot p addresses and what follows its URI ("",
// insertAction or ejectAction).
func (b *BMC) slotAt(p string) (slotRef, string, bool) {
	for _, s := range b.slots() {
		if p == s.uri {
			return s, "", true
		}
		if rest, ok := strings.CutPrefix(p, s.uri); ok && (rest == insertAction || rest == ejectAction) {
			return s, rest, true
		}
	}
	return slotRef{}, "", false
}

// mediaCollection renders the collection at uri in the profile's order.
func (b *BMC) mediaCollection(uri string) doc {
	var members []string
	for _, s := range b.slots() {
		if strings.HasPrefix(s.uri, uri+"/") {
			members = append(members, s.uri)
		}
	}
	return collection(uri, "VirtualMediaCollection", "Virtual Media Services", members...)
}
