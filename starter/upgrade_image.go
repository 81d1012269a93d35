package main

import (
	"context"
	"strings"
	"time"

	"github.com/rackroll/rackroll/activities/image"
	"github.com/rackroll/rackroll/internal/api"
)

// askImage asks for version's image from this machine, as the upgrade's
// preflight will from the worker (which also compares the checksum, when
// the inventory gives one: the CLI does not download the image). reached
// is false when nothing answered here; the worker may still reach it.
func askImage(ctx context.Context, st api.ClusterState, version string) (c api.ImageCheck, reached bool) {
	url := strings.ReplaceAll(st.ImageURLTemplate, "{version}", version)
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	c, err := (&image.Activities{RequestTimeout: 10 * time.Second}).CheckImage(ctx, image.CheckInput{URL: url})
	if err != nil {
		return api.ImageCheck{URL: url, Answer: "nothing answered this machine (" + err.Error() + "); the upgrade asks again from the worker"}, false
	}
	return c, true
}

// imageNote is the plan's line about the image.
func imageNote(c api.ImageCheck, reached bool) string {
	switch {
	case !reached:
		return "Image " + c.URL + ": " + c.Answer
	case c.OK:
		return "Image " + c.URL + ": " + c.Answer + " (asked from this machine; the upgrade asks again before touching anything)"
	}
	return "Image " + c.URL + ": " + c.Answer + ": the upgrade would be refused"
}
