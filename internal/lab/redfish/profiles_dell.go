package redfish

import (
	"net/http"
	"time"
)

// Dell iDRAC. Shapes from iDRAC9 6.x/7.x payloads: media under the System
// (the Manager's collection is gone since 6.x), listed /2 before /1, both
// slots CD/DVD/USBStick; weak ETags (W/"gen-N"); no BootProgress on most
// firmware; ComputerSystem.Reset and InsertMedia answer 204; about eight
// concurrent sessions (bb-Ricardo/check_redfish#198), the ninth refused
// with RAC0218. Firmware: the FirmwareInventory lists Installed- and
// Previous- members; host firmware updates are jobs staged until the next
// host reset. Accounts: 16 fixed slots on idrac9 (accounts_slots.go);
// idrac10 creates them by POST (its accounts appear as created:
// dsx-ai-factory/infra-controller#6358 found no slot 3 on iDRAC10 1.30,
// dell/iDRAC-Redfish-Scripting#342 shows a POST making Accounts/5).
func init() {
	register("idrac9", idrac9)
	register("idrac10", idrac10)
	register("idrac9-lagging", idrac9Lagging)
}

// idrac9Lagging is an iDRAC9 whose resets show a few seconds after their
// 204, as loaded BMCs do: the first reads after the answer still show the
// machine on, so only a visible cycle proves a restart (docs/evidence.md).
func idrac9Lagging() Profile {
	p := idrac9()
	p.Name = "idrac9-lagging"
	p.ResetDelay = 3 * time.Second
	return p
}

var dellSlotTypes = []string{"CD", "DVD", "USBStick"}

func idrac9() Profile {
	return Profile{
		Name: "idrac9", Vendor: "Dell", Product: "Integrated Dell Remote Access Controller",
		Manufacturer: "Dell Inc.", Model: "PowerEdge R650",
		SystemID: "System.Embedded.1", ManagerID: "iDRAC.Embedded.1",
		ManagerModel: "15G Monolithic", Firmware: "7.00.30.00", BiosVersion: "1.13.2",
		SystemMedia: []Slot{
			{ID: "2", Name: "VirtualMedia Instance 2", MediaTypes: dellSlotTypes, Boots: true, Drive: 0},
			{ID: "1", Name: "VirtualMedia Instance 1", MediaTypes: dellSlotTypes, Boots: true, Drive: 1},
		},
		SystemMediaLink: "system",
		StaleEject:      true,
		BootTargets:     []string{"None", "Pxe", "Floppy", "Cd", "Hdd", "BiosSetup", "Utilities", "UefiTarget", "SDCard", "UefiHttp"},
		VirtualCDBoot:   "Cd",
		ResetTypes:      []string{"On", "ForceOff", "ForceRestart", "GracefulRestart", "GracefulShutdown", "PushPowerButton", "Nmi", "PowerCycle"},
		WeakETag:        true,
		ResetReply:      http.StatusNoContent, InsertReply: http.StatusNoContent, EjectReply: http.StatusNoContent,
		TaskPrefix:     "JID_",
		SessionLimit:   8,
		SessionTimeout: 30 * time.Minute,
		BasicAuth:      true,
		SessionLimitID: "IDRAC.2.8.RAC0218", SessionLimitMessage: "RAC0218: The maximum number of user sessions is reached.",
		// 503, as reported in stmcginnis/gofish#75 and
		// bb-Ricardo/check_redfish#89 (iDRAC9 answering the login).
		SessionLimitStatus: http.StatusServiceUnavailable,
		FirmwareIDs:        "dell", NICFirmware: "22.31.6", StorageFirmware: "52.16.1-4405",
		StagesHostUpdates: true, MultipartPush: true,
		AccountSlots: DefaultAccountLimit,
	}
}

// idrac10 is iDRAC9's shape with iDRAC10's differences: virtual media
// boots only from slot 1 (an image in slot 2 is not offered to the
// firmware), basic auth is off by default (401 unless X-Auth-Token), and
// the reset is a job: 202 with a task monitor that completes once the
// power cycle is done (not when an OS runs: the BMC cannot see one).
func idrac10() Profile {
	p := idrac9()
	p.Name = "idrac10"
	p.Model = "PowerEdge R670"
	p.ManagerModel = "17G Monolithic"
	p.Firmware = "1.20.25.00"
	p.BiosVersion = "1.2.3"
	p.SystemMedia[0].Boots = false
	p.BasicAuth = false
	p.ResetReply = http.StatusAccepted
	p.AccountSlots = 0
	return p
}
