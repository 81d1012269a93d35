package kube

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
)

// WaitReadyInput names the node to wait for.
type WaitReadyInput struct {
	Node string
	// Version, when set, must also be the node's runtime-version label
	// (the machine came back on the target runtime).
	Version string
	// Timeout bounds the wait; 0 waits until the activity's own timeout.
	Timeout time.Duration
}

// WaitNodeReady polls until the node exists, is Ready and (when asked)
// carries Version, heartbeating the latest status meanwhile. When Timeout
// passes it fails with a non-retryable ErrNodeNotReady error whose
// details hold the last NodeStatus.
func (a *Activities) WaitNodeReady(ctx context.Context, in WaitReadyInput) (NodeStatus, error) {
	if in.Node == "" {
		return NodeStatus{}, invalidInput("node name is empty")
	}
	if in.Timeout < 0 {
		return NodeStatus{}, invalidInput("timeout %v is negative", in.Timeout)
	}
	var deadline <-chan time.Time
	if in.Timeout > 0 {
		t := time.NewTimer(in.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	tick := time.NewTicker(a.opts.PollInterval)
	defer tick.Stop()
	last := NodeStatus{Node: in.Node}
	var lastErr error
	for {
		st, err := a.ReadNode(ctx, in.Node)
		if err != nil {
			lastErr = err // transient API errors: keep polling until the deadline
		} else {
			last, lastErr = st, nil
			if readyFor(st, in.Version) {
				return st, nil
			}
		}
		heartbeat(ctx, last)
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-deadline:
			msg := fmt.Sprintf("node %s not Ready within %v: %s", in.Node, in.Timeout, last)
			if in.Version != "" && last.RuntimeVersion != in.Version {
				msg += fmt.Sprintf(" (want runtime-version %s)", in.Version)
			}
			if lastErr != nil {
				msg += fmt.Sprintf("; last API error: %v", lastErr)
			}
			return last, temporal.NewNonRetryableApplicationError(msg, ErrNodeNotReady, lastErr, last)
		case <-tick.C:
		}
	}
}

// readyFor reports whether st is Ready on version ("" = any).
func readyFor(st NodeStatus, version string) bool {
	return st.IsReady() && (version == "" || st.RuntimeVersion == version)
}
