package bmcclient

import (
	"fmt"
	"strconv"
)

// System is what the activities read of a ComputerSystem.
type System struct {
	PowerState   string   // On, Off, PoweringOn, PoweringOff
	Health       string   // Status.Health
	State        string   // Status.State
	BootProgress string   // BootProgress.LastState; "" when not reported
	BootOverride string   // Boot.BootSourceOverrideEnabled
	BootTarget   string   // Boot.BootSourceOverrideTarget
	BootTargets  []string // BootSourceOverrideTarget@Redfish.AllowableValues; nil when not listed
	// BootModeShown: the System has Boot.BootSourceOverrideMode (BootMode
	// its value, "" when null); BootModes its allowable values, nil when
	// not listed.
	BootModeShown bool
	BootMode      string
	BootModes     []string
	ResetTypes    []string
	ETag          string
}

// BootOverride is what SetBootOverride writes; Mode "" is not sent.
type BootOverride struct {
	Enabled, Target, Mode string
}

// MediaCollection is a VirtualMedia collection and where it hangs.
type MediaCollection struct {
	URI      string
	Location string // "System" or "Manager"
}

// MediaInfo is one virtual-media member as the BMC shows it.
type MediaInfo struct {
	URI          string
	ID           string
	Location     string // "System" or "Manager"
	MediaTypes   []string
	ConnectedVia string
	Image        string
	ImageName    string // some BMCs show the image only here
	Inserted     bool
	InsertTarget string // the InsertMedia action's target; "": PATCH the resource
	EjectTarget  string // the EjectMedia action's target; "": PATCH the resource
}

// InsertParams are the InsertMedia parameters. BMCs that refuse some of
// them (XCC, Supermicro X11) are sent fewer on a retry.
type InsertParams struct {
	Image                string
	Inserted             *bool
	WriteProtected       *bool
	TransferProtocolType string // "" leaves it out
}

// Task is a task monitor's view of a long-running action.
type Task struct {
	State   string // Redfish TaskState: Running, Completed, Exception, Cancelled, ...
	Message string
	Percent int // PercentComplete; 0 when not reported
}

// Accepted is a BMC's answer to an action it took: the status and the
// task it announced, if any (for updates: a Location on any 2xx, or a task
// in the body; other actions: a 202's monitor).
type Accepted struct {
	Status int
	Task   string
}

func (a Accepted) String() string {
	switch {
	case a.Task != "":
		return fmt.Sprintf("%d, task %s", a.Status, a.Task)
	case a.Status == 0:
		return "accepted"
	}
	return strconv.Itoa(a.Status)
}
