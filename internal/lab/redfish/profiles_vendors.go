package redfish

import (
	"net/http"
	"time"
)

func init() {
	register("ilo5", ilo5)
	register("supermicro", supermicro)
	register("xcc", xcc)
	register("dmtf", dmtf)
}

// ilo5: HPE iLO 5. Media under the Manager only (the System has no
// VirtualMedia link); slot 1 is Floppy/USBStick, the virtual CD is slot
// 2; weak ETags; no BootProgress (iLO 6 adds it); actions answer 200 with
// a Base.Success message. Firmware: integer member ids ("1" iLO, "2"
// System ROM); a System ROM update installs now and is active after the
// next host reset.
func ilo5() Profile {
	return Profile{
		Name: "ilo5", Vendor: "HPE", Product: "ProLiant DL360 Gen10 Plus",
		Manufacturer: "HPE", Model: "ProLiant DL360 Gen10 Plus",
		SystemID: "1", ManagerID: "1", ManagerModel: "iLO 5", Firmware: "iLO 5 v2.81", BiosVersion: "U46 v1.64 (08/11/2022)",
		ManagerMedia: []Slot{
			{ID: "1", Name: "Virtual Removable Media", MediaTypes: []string{"Floppy", "USBStick"}, Drive: 0},
			{ID: "2", Name: "Virtual Removable Media", MediaTypes: []string{"CD", "DVD"}, Boots: true, Drive: 1},
		},
		BootTargets:   []string{"None", "Cd", "Hdd", "Usb", "SDCard", "Utilities", "Diags", "BiosSetup", "Pxe", "UefiShell", "UefiHttp", "UefiTarget"},
		VirtualCDBoot: "Cd",
		ResetTypes:    []string{"On", "ForceOff", "GracefulShutdown", "ForceRestart", "Nmi", "PushPowerButton", "GracefulRestart"},
		WeakETag:      true,
		ResetReply:    http.StatusOK, InsertReply: http.StatusOK, EjectReply: http.StatusOK,
		SessionLimit:   10,
		SessionTimeout: 30 * time.Minute,
		BasicAuth:      true,
		SessionLimitID: "Base.1.12.SessionLimitExceeded", SessionLimitMessage: "The session establishment failed due to the number of simultaneous sessions exceeding the limit of the implementation.",
		FirmwareIDs: "hpe", NICFirmware: "20.14.54", StorageFirmware: "3.53",
		MultipartPush: true,
	}
}

// supermicro: X12 with Redfish 1.14. The System's VirtualMedia link points
// at the Manager's collection (one slot, CD1); the virtual CD boots with
// UsbCd (its list has no Cd; CD/DVD is the physical drive); the reset allowable values carry the
// malformed GracefulShutdownGracefulRestart (plain GracefulShutdown is
// still accepted); strong ETags; BootProgress shows POST-time values only
// (SystemHardwareInitializationComplete once POST is past, whatever the
// OS does); InsertMedia answers 202 and mounts in the background.
// Firmware: pushed images only (multipart), the host off for a BIOS
// update, busy refused with OemFirmwareAlreadyInUpdateMode (bmclib).
func supermicro() Profile {
	return Profile{
		Name: "supermicro", Vendor: "Supermicro", Product: "SYS-510T-MR",
		Manufacturer: "Supermicro", Model: "SYS-510T-MR",
		SystemID: "1", ManagerID: "1", ManagerModel: "X12STH-SYS", Firmware: "01.01.06", BiosVersion: "2.0",
		ManagerMedia: []Slot{
			{ID: "CD1", Name: "Virtual Removable Media", MediaTypes: []string{"CD", "DVD"}, Boots: true, Drive: 0},
		},
		SystemMediaLink: "manager",
		BootTargets: []string{"None", "Pxe", "Hdd", "Diags", "CD/DVD", "BiosSetup", "FloppyRemovableMedia", "UsbKey", "UsbHdd",
			"UsbFloppy", "UsbCd", "UefiUsbKey", "UefiCd", "UefiHdd", "UefiUsbHdd", "UefiUsbCd"},
		VirtualCDBoot: "UsbCd",
		ResetTypes:    []string{"On", "ForceOff", "GracefulShutdownGracefulRestart", "ForceRestart", "Nmi", "ForceOn"},
		BootProgress:  "post",
		ResetReply:    http.StatusOK, InsertReply: http.StatusAccepted, EjectReply: http.StatusOK,
		SessionLimit:   10,
		SessionTimeout: 5 * time.Minute,
		BasicAuth:      true,
		SessionLimitID: "Base.1.12.SessionLimitExceeded", SessionLimitMessage: "The session establishment failed due to the number of simultaneous sessions exceeding the limit of the implementation.",
		NoSimpleUpdate: true, MultipartPush: true, HostOffFor: []string{KindBIOS},
		BusyStatus: http.StatusBadRequest, BusyID: "SMC.1.0.OemFirmwareAlreadyInUpdateMode",
	}
}

// xcc: Lenovo XClarity Controller. The Manager's collection lists the
// RDOC upload slots first (they take uploaded images, never a URL), then
// the remote-mount slots EXT1/EXT2, which have no InsertMedia action: the
// image is mounted with a PATCH of Image and Inserted. Weak ETags; no
// BootProgress.
func xcc() Profile {
	cd := []string{"CD", "DVD", "USBStick"}
	return Profile{
		Name: "xcc", Vendor: "Lenovo", Product: "ThinkSystem SR650 V2",
		Manufacturer: "Lenovo", Model: "ThinkSystem SR650 V2",
		SystemID: "1", ManagerID: "1", ManagerModel: "XClarity Controller", Firmware: "TGBT56T 6.30", BiosVersion: "AFE120J",
		ManagerMedia: []Slot{
			{ID: "RDOC1", Name: "RDOC1", MediaTypes: cd, Upload: true, NoInsertAction: true, Drive: 0},
			{ID: "RDOC2", Name: "RDOC2", MediaTypes: cd, Upload: true, NoInsertAction: true, Drive: 1},
			{ID: "EXT1", Name: "EXT1", MediaTypes: cd, NoInsertAction: true, Boots: true, Drive: 2},
			{ID: "EXT2", Name: "EXT2", MediaTypes: cd, NoInsertAction: true, Boots: true, Drive: 3},
		},
		BootTargets:   []string{"None", "Pxe", "Cd", "Usb", "Hdd", "BiosSetup", "Diags", "UefiTarget"},
		VirtualCDBoot: "Cd",
		ResetTypes:    []string{"On", "Nmi", "GracefulShutdown", "GracefulRestart", "ForceOn", "ForceOff", "ForceRestart"},
		WeakETag:      true,
		ResetReply:    http.StatusOK, InsertReply: http.StatusOK, EjectReply: http.StatusOK,
		SessionLimit:   16,
		SessionTimeout: 30 * time.Minute,
		BasicAuth:      true,
		SessionLimitID: "Base.1.12.SessionLimitExceeded", SessionLimitMessage: "The session establishment failed due to the number of simultaneous sessions exceeding the limit of the implementation.",
	}
}

// dmtf: the shape of DMTF's public-rackmount1 mockup: System 437XR1138R2,
// Manager BMC with Floppy1 and CD1, full BootProgress, 204 answers.
func dmtf() Profile {
	return Profile{
		Name: "dmtf", Vendor: "Contoso", Product: "Contoso Redfish Service",
		Manufacturer: "Contoso", Model: "3500",
		SystemID: "437XR1138R2", ManagerID: "BMC", ManagerModel: "Joo Janta 200", Firmware: "4.4.6521", BiosVersion: "P79 v1.45 (12/06/2017)",
		ManagerMedia: []Slot{
			{ID: "Floppy1", Name: "Virtual Removable Media", MediaTypes: []string{"Floppy", "USBStick"}, Drive: 0},
			{ID: "CD1", Name: "Virtual CD", MediaTypes: []string{"CD", "DVD"}, Boots: true, Drive: 1},
		},
		BootTargets:   []string{"None", "Pxe", "Cd", "Usb", "Hdd", "BiosSetup", "Utilities", "Diags", "SDCard", "UefiTarget"},
		VirtualCDBoot: "Cd",
		ResetTypes:    []string{"On", "ForceOff", "GracefulShutdown", "GracefulRestart", "ForceRestart", "Nmi", "ForceOn", "PushPowerButton", "PowerCycle"},
		BootProgress:  "full",
		ResetReply:    http.StatusNoContent, InsertReply: http.StatusNoContent, EjectReply: http.StatusNoContent,
		SessionTimeout: 30 * time.Minute,
		BasicAuth:      true,
	}
}

func init() {
	register("nomedia", nomedia)
	register("sushy", sushy)
	register("noauth", noauth)
}

// noauth: a BMC that serves every resource without credentials (Redfish
// authentication turned off: OpenBMC bmcweb built with its development-only
// insecure-disable-auth option, sushy-tools run without an auth file).
// rackroll still logs in; site check must warn that anyone who reaches it
// can reset the machine.
func noauth() Profile {
	p := dmtf()
	p.Name = "noauth"
	p.NoAuth = true
	return p
}

// sushy: openstack/sushy-tools over libvirt, in DMTF's shape: it answers a
// one-time boot override and keeps it Continuous, so every boot takes the
// CD until the override is cleared.
func sushy() Profile {
	p := dmtf()
	p.Name, p.Vendor, p.Product = "sushy", "OpenStack", "sushy-tools"
	p.KeepsContinuous = true
	return p
}

// nomedia: a BMC that offers no virtual media over Redfish (a Supermicro
// without its DCMS license key, older chassis managers): no VirtualMedia
// anywhere. rackroll cannot reimage through it; `site check` must say so.
func nomedia() Profile {
	p := supermicro()
	p.Name = "nomedia"
	p.ManagerMedia, p.SystemMediaLink = nil, ""
	return p
}
