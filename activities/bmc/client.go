package bmc

import (
	"context"
	"time"
)

// Client is the slice of standard DMTF Redfish the activities use. The
// gofish implementation talks to real BMCs and the lab; unit tests use a
// fake. Every method is one request (or a few reads); none retries.
type Client interface {
	// System reads the ComputerSystem (one GET).
	System(ctx context.Context) (System, error)
	// OSImage reads the installed OS image the System's OperatingSystem
	// resource links (Links.SoftwareImage → SoftwareInventory); the zero
	// OSImage when the BMC publishes none.
	OSImage(ctx context.Context) (OSImage, error)
	// SetBootOverride PATCHes Boot with If-Match: etag ("" sends none).
	SetBootOverride(ctx context.Context, enabled, target, etag string) error
	// Reset posts ComputerSystem.Reset; taskMonitor is "" unless the BMC
	// answered 202 with one.
	Reset(ctx context.Context, resetType string) (taskMonitor string, err error)
	// Media finds the virtual CD: under the System first, then under the
	// Manager (older iDRAC firmware).
	Media(ctx context.Context) (Media, error)
	InsertMedia(ctx context.Context, image string) (taskMonitor string, err error)
	EjectMedia(ctx context.Context) (taskMonitor string, err error)
	// Task reads a task monitor.
	Task(ctx context.Context, monitor string) (Task, error)
	Close()
}

// System is what the activities read of a ComputerSystem.
type System struct {
	PowerState   string // On, Off, PoweringOn, PoweringOff
	Health       string // Status.Health
	State        string // Status.State: Starting / Updating mean a boot or reimage is in flight
	BootProgress string // BootProgress.LastState; "" when not reported
	BootOverride string // Boot.BootSourceOverrideEnabled
	BootTarget   string // Boot.BootSourceOverrideTarget
	ResetTypes   []string
	ETag         string
}

// OSImage is the installed OS as SoftwareInventory: Version is what the
// machine runs (or boots into), Health turns Critical after a failed install.
type OSImage struct {
	Version string
	Health  string
}

// Media is the virtual CD drive.
type Media struct {
	URI      string
	Location string // "System" or "Manager"
	Image    string
	Inserted bool
}

// Task is a task monitor's view of a long-running action.
type Task struct {
	State   string // Redfish TaskState: Running, Completed, Exception, Cancelled, ...
	Message string
}

// Dialer connects to one BMC. timeout bounds each HTTP request.
type Dialer func(ctx context.Context, ep Endpoint, creds Credentials, timeout time.Duration) (Client, error)
