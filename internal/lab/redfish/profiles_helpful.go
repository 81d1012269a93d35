package redfish

import (
	"net/http"
	"time"
)

func init() { register("helpful", helpful) }

// helpful is the lab's original BMC, kinder than any vendor's: the
// installed version in OperatingSystem → SoftwareImage, Status.State
// Starting/Updating in flight, Health Critical after a failed install, a
// reset task that completes when the OS runs, one drive seen under both the
// System (VirtualMedia/1) and the Manager (VirtualMedia/CD). Never the
// default.
func helpful() Profile {
	return Profile{
		Name: "helpful", Vendor: "Dell", Product: "Integrated Dell Remote Access Controller",
		Manufacturer: "Dell Inc.", Model: "PowerEdge R650",
		SystemID: "System.Embedded.1", ManagerID: "iDRAC.Embedded.1",
		ManagerModel: "15G Monolithic", Firmware: "7.00.30.00", BiosVersion: "1.13.2",
		SystemMedia:     []Slot{{ID: "1", Name: "Virtual CD", MediaTypes: []string{"CD", "DVD"}, Boots: true, Drive: 0}},
		ManagerMedia:    []Slot{{ID: "CD", Name: "Virtual CD", MediaTypes: []string{"CD", "DVD"}, Boots: true, Drive: 0}},
		SystemMediaLink: "system",
		BootTargets:     []string{"None", "Pxe", "Cd", "Hdd", "BiosSetup"},
		VirtualCDBoot:   "Cd",
		ResetTypes:      []string{"On", "ForceOff", "GracefulShutdown", "ForceRestart", "GracefulRestart"},
		BootProgress:    "full",
		Helpful:         true,
		ResetReply:      http.StatusAccepted, InsertReply: http.StatusAccepted, EjectReply: http.StatusNoContent,
		TaskPrefix:     "JID_",
		SessionTimeout: 30 * time.Minute,
		BasicAuth:      true,
	}
}
