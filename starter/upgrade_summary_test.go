package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/upgradeplan"
)

// The summary says what this run did: a resumed upgrade counts the servers
// it found at the target apart from those it upgraded.
func TestSummarySaysWhatThisRunDid(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	end := start.Add(3 * time.Minute)
	unit := func(name string, states map[string]string) api.UnitStatus {
		var names []string
		for n := range states {
			names = append(names, n)
		}
		u := upgradeplan.NewUnit(name, names, 0)
		for n, s := range states {
			u.Apply(api.ServerStatus{Name: n, State: s})
		}
		return u
	}
	status := func(already string, kept bool) api.UpgradeStatus {
		return api.UpgradeStatus{TargetVersion: "4.2.0", DetailedStatusMessage: "Runtime upgrade to 4.2.0 completed",
			StartedAt: start, FinishedAt: &end,
			Plan: &upgradeplan.Plan{ControlPlane: []upgradeplan.KCPStep{
				{BMM: "k1", Action: "upgrade-spare", Skip: already == api.StateSkipped, Kept: kept}, {BMM: "k2", Action: "swap"}, {BMM: "k3", Action: "retire"}}},
			ControlPlane: unit("control-plane", map[string]string{"k1": already, "k2": api.StateSucceeded, "k3": api.StateSucceeded}),
			Racks:        []api.UnitStatus{unit("rack1", map[string]string{"c1": already, "c2": already, "c3": api.StateSucceeded, "c4": api.StateFailed})},
		}
	}
	for _, tc := range []struct {
		name, already string
		kept          bool
		want          string
	}{
		{"first run", api.StateSucceeded, false, "Runtime upgrade to 4.2.0 completed: 5 servers upgraded, 1 retired to spare, 1 failed (left cordoned), in 3m0s\n"},
		{"resumed", api.StateSkipped, false, "Runtime upgrade to 4.2.0 completed: 2 servers upgraded, 1 retired to spare, 1 failed (left cordoned), in 3m0s; 3 already at 4.2.0 before this run\n"},
		// The spare a run retired waits on the old version: skipped, but
		// not among the servers at the target.
		{"spare kept", api.StateSkipped, true, "Runtime upgrade to 4.2.0 completed: 2 servers upgraded, 1 retired to spare, 1 failed (left cordoned), in 3m0s; 2 already at 4.2.0 before this run\n"},
	} {
		var b strings.Builder
		summary(&b, status(tc.already, tc.kept))
		if got := b.String()[strings.LastIndex(strings.TrimSuffix(b.String(), "\n"), "\n")+1:]; got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
