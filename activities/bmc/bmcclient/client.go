package bmcclient

import (
	"context"
	"os"
	"time"

	"github.com/rackroll/rackroll/internal/firmware"
)

// Client is the slice of standard DMTF Redfish the activities use. Every
// method is one request (or a few reads); none retries: retrying is the
// activities' decision. Errors the BMC answered are *StatusError (or
// *PartialError for a collection read), errors the client decided itself
// *Failure.
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
	// timeout: slow BMCs take longer, and the caller sets the bound.
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
	// req.Image) with what the action's ActionInfo requires; PushUpdate
	// posts file to the MultipartHttpPushUri, its UpdateParameters naming
	// the targets. The answer names the task however the BMC announced it.
	SimpleUpdate(ctx context.Context, req UpdateRequest) (Accepted, error)
	PushUpdate(ctx context.Context, file *os.File, req UpdateRequest) (Accepted, error)
	// PushApplyTime is the apply time a push sends for the one asked (""
	// is Immediate), among those the BMC lists, and whether the image then
	// waits for StartUpdate; PushUpdate sends req.ApplyTime as it is. Asked
	// before the push, so the need for StartUpdate is recorded before it.
	PushApplyTime(ctx context.Context, asked string) (send string, awaitsStart bool, err error)
	// StartUpdate posts UpdateService.StartUpdate: the BMC applies what was
	// pushed with @Redfish.OperationApplyTime OnStartUpdateRequest.
	StartUpdate(ctx context.Context) (Accepted, error)
	// Close ends the Redfish session, if any, and drops idle connections.
	Close()
}

// Dialer connects to one BMC. timeout bounds each HTTP request.
type Dialer func(ctx context.Context, ep Endpoint, creds Credentials, timeout time.Duration) (Client, error)

// Endpoint is where a BMC answers and how its certificate is checked:
// what a Dialer needs of the activities' endpoint (bmc.Endpoint), which
// also names the BMM and where its credentials live.
type Endpoint struct {
	Address            string // "https://10.1.0.11"; without a scheme https is assumed
	CAFile             string // PEM bundle the BMC's certificate is verified against; "": system roots
	InsecureSkipVerify bool   // TLS verification is on unless this is set
}

// Credentials are resolved inside an activity and never leave it. String
// and GoString hide the password so a stray %v cannot log it.
type Credentials struct {
	Username, Password string
}

func (c Credentials) String() string { return c.Username + ":<redacted>" }
func (c Credentials) GoString() string {
	return "bmcclient.Credentials{Username:" + c.Username + ", Password:<redacted>}"
}
