package bmc

import (
	"context"
	"errors"
	"time"
)

// The contract of the in-band reimage (issue 13) as the workflows use it;
// the real bodies come from the bmcclient branch, which replaces this file.

// EjectInput names the installer to eject.
type EjectInput struct {
	Endpoint
	ImageURL string
}

// EjectMedia ejects ImageURL if it is what is inserted; idempotent.
func (a *Activities) EjectMedia(ctx context.Context, in EjectInput) error {
	return errors.New("EjectMedia: not implemented in this branch")
}

// WatchInput is a reimage to watch for BMC hints that it failed.
type WatchInput struct {
	Endpoint
	Task                   string
	OffLimit, SilenceLimit time.Duration
}

// WatchReimage runs until cancelled, heartbeating; it fails non-retryably
// on a BMC hint the install failed, naming the BMM and last BMC state.
func (a *Activities) WatchReimage(ctx context.Context, in WatchInput) error {
	return errors.New("WatchReimage: not implemented in this branch")
}
