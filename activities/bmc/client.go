package bmc

import (
	"context"
	"os"
	"time"

	"github.com/rackroll/rackroll/internal/firmware"
)

// Client is the slice of standard DMTF Redfish the activities use. The
// gofish implementation talks to real BMCs and the lab; unit tests use a
// fake. Every method is one request (or a few reads); none retries.
type Client interface {
	// System reads the ComputerSystem (one GET).
	System(ctx context.Context) (System, error)
	// SetBootOverride PATCHes Boot with If-Match: etag ("" sends none).
	SetBootOverride(ctx context.Context, o BootOverride, etag string) error
	// Reset posts ComputerSystem.Reset; the answer's Task is "" unless the
	// BMC answered 202 with one.
	Reset(ctx context.Context, resetType string) (Accepted, error)
	// MediaCollections finds the VirtualMedia collections: the System's
	// first, then each Manager's (older iDRAC, iLO, Supermicro, XCC).
	MediaCollections(ctx context.Context) ([]MediaCollection, error)
	// MediaMembers lists a collection's member URIs (one GET).
	MediaMembers(ctx context.Context, coll MediaCollection) ([]string, error)
	// Medium reads one member (one GET of m.URI; m.Location is kept).
	Medium(ctx context.Context, m MediaInfo) (MediaInfo, error)
	// InsertMedia posts m's InsertMedia action with p, or PATCHes m where
	// it has no such action (Lenovo XCC). Bounded by ctx, not the request
	// timeout: slow BMCs take longer (slow.go).
	InsertMedia(ctx context.Context, m MediaInfo, p InsertParams) (taskMonitor string, err error)
	// EjectMedia posts m's EjectMedia action, or PATCHes it empty; bounded
	// by ctx as InsertMedia is.
	EjectMedia(ctx context.Context, m MediaInfo) (taskMonitor string, err error)
	// Task reads a task monitor.
	Task(ctx context.Context, monitor string) (Task, error)
	// Firmware reads the System's manufacturer and model and
	// UpdateService/FirmwareInventory (a GET per member).
	Firmware(ctx context.Context) (firmware.Server, error)
	// SimpleUpdate posts UpdateService.SimpleUpdate (the BMC fetches
	// image); PushUpdate posts file to the MultipartHttpPushUri. applyTime
	// "" leaves @Redfish.OperationApplyTime to the BMC.
	SimpleUpdate(ctx context.Context, image, applyTime string) (Accepted, error)
	PushUpdate(ctx context.Context, file *os.File, applyTime string) (Accepted, error)
	// Close ends the Redfish session, if any, and drops idle connections.
	Close()
}

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
	ImageName    string // some BMCs show the image only here (see judgeImage)
	Inserted     bool
	InsertTarget string // the InsertMedia action's target; "": PATCH the resource
	EjectTarget  string // the EjectMedia action's target; "": PATCH the resource
}

// occupied: something is (or the BMC claims something is) in the drive.
func (m MediaInfo) occupied() bool { return m.Inserted || m.Image != "" }

// InsertParams are the InsertMedia parameters. BMCs that refuse some of
// them (XCC, Supermicro X11) get fewer on a retry (see insertLevels).
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

// Dialer connects to one BMC. timeout bounds each HTTP request.
type Dialer func(ctx context.Context, ep Endpoint, creds Credentials, timeout time.Duration) (Client, error)
