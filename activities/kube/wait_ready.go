package kube

import (
	"context"
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"go.temporal.io/sdk/temporal"
)

// WaitReadyInput names the node to wait for.
type WaitReadyInput struct {
	Node string
	// Version, when set, must also be the version the node shows (the
	// machine came back on the target runtime), read through VersionFrom.
	Version     string
	VersionFrom model.NodeVersionSource `json:",omitzero"`
	// PreviousBootID, when set, is the node's bootID before a reset: the
	// node must show another one (a new boot), so a reimage to the version
	// the machine already runs does not pass on the old boot.
	PreviousBootID string `json:",omitempty"`
	// Timeout bounds the wait; 0 waits until the activity's own timeout.
	Timeout time.Duration
}

// WaitNodeReady polls until the node exists, is Ready, (when asked) shows
// Version and a boot other than PreviousBootID, heartbeating the latest
// status meanwhile. When Timeout passes it fails with a non-retryable
// ErrNodeNotReady error whose details hold the last NodeStatus.
func (a *Activities) WaitNodeReady(ctx context.Context, in WaitReadyInput) (NodeStatus, error) {
	if in.Node == "" {
		return NodeStatus{}, invalidInput("node name is empty")
	}
	if in.Timeout < 0 {
		return NodeStatus{}, invalidInput("timeout %v is negative", in.Timeout)
	}
	if err := checkSource(in.VersionFrom); err != nil {
		return NodeStatus{}, err
	}
	var deadline <-chan time.Time
	if in.Timeout = withinDeadline(ctx, in.Timeout); in.Timeout > 0 {
		t := time.NewTimer(in.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	tick := time.NewTicker(a.opts.PollInterval)
	defer tick.Stop()
	last := NodeStatus{Node: in.Node}
	var lastErr error
	for {
		st, err := a.ReadNode(ctx, in.Node, in.VersionFrom)
		if err != nil {
			lastErr = err // transient API errors: keep polling until the deadline
		} else {
			last, lastErr = st, nil
			if backFor(st, in) {
				return st, nil
			}
		}
		heartbeat(ctx, last)
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-deadline:
			msg := fmt.Sprintf("node %s not Ready within %v: %s%s", in.Node, roundWait(in.Timeout), last, missing(last, in))
			if lastErr != nil {
				msg += fmt.Sprintf("; last API error: %v", lastErr)
			}
			return last, temporal.NewNonRetryableApplicationError(msg, ErrNodeNotReady, lastErr, last)
		case <-tick.C:
		}
	}
}

// roundWait shows a wait cut by the deadline margin (27.701376354s) as
// the operator reads it (28s).
func roundWait(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d
}

// readyFor reports whether st is Ready on version ("" = any).
func readyFor(st NodeStatus, version string) bool {
	return st.IsReady() && (version == "" || st.RuntimeVersion == version)
}

// backFor reports whether st is what in waits for: Ready on its version
// and, when a previous boot is named, on another boot.
func backFor(st NodeStatus, in WaitReadyInput) bool {
	return readyFor(st, in.Version) && newBoot(st, in.PreviousBootID)
}

// newBoot: a node that shows no bootID cannot prove a new boot.
func newBoot(st NodeStatus, previous string) bool {
	return previous == "" || (st.BootID != "" && st.BootID != previous)
}

// missing says what of in the last status lacked, for the timeout message.
func missing(last NodeStatus, in WaitReadyInput) string {
	var out string
	if in.Version != "" && last.RuntimeVersion != in.Version {
		out += fmt.Sprintf(" (want version %s from %s", in.Version, in.VersionFrom)
		if in.VersionFrom.Label == "" && last.Exists {
			out += fmt.Sprintf(": osImage %q", last.OSImage)
		}
		out += ")"
	}
	if last.Exists && !newBoot(last, in.PreviousBootID) {
		out += fmt.Sprintf(" (still the boot from before the reset, bootID %q: the machine did not boot again)", in.PreviousBootID)
	}
	return out
}
