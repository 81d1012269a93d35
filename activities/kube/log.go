package kube

import (
	"context"
	"strings"

	"go.temporal.io/sdk/activity"
)

// logWriter sends kubectl drain's progress lines to the activity logger
// (and drops them outside an activity).
type logWriter struct{ ctx context.Context }

func (w logWriter) Write(b []byte) (int, error) {
	if activity.IsActivity(w.ctx) {
		for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if line != "" {
				activity.GetLogger(w.ctx).Info(line)
			}
		}
	}
	return len(b), nil
}
