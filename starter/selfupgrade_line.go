package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"go.temporal.io/sdk/client"
)

// buildsLine says which rackroll build each of the runs is on, for the
// footers of `upgrade status` and `cluster show`: "" when none is on a
// versioned worker (nothing to tell), else e.g.
// "builds: upgrade:c rackroll:B pinned, cluster:c rackroll:B pinned".
func buildsLine(rows []runBuild) string {
	var parts []string
	versioned := false
	for _, r := range rows {
		if r.State != "running" {
			continue
		}
		versioned = versioned || r.Build != "unversioned"
		part := r.ID + " " + r.Build
		if r.Behavior != "-" {
			part += " " + r.Behavior
		}
		parts = append(parts, part)
	}
	if !versioned {
		return ""
	}
	return "builds: " + strings.Join(parts, ", ")
}

// printBuilds writes buildsLine of the given runs, when there is one.
func printBuilds(ctx context.Context, w io.Writer, c client.Client, ids ...string) {
	rows := make([]runBuild, 0, len(ids))
	for _, id := range ids {
		rows = append(rows, buildOf(ctx, c, id))
	}
	if line := buildsLine(rows); line != "" {
		fmt.Fprintln(w, line)
	}
}
