package main

import "testing"

func TestBuildsLineNamesEachRunningRunsBuild(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows []runBuild
		want string
	}{
		{"unversioned workers: nothing to tell", []runBuild{{ID: "upgrade:c", State: "running", Build: "unversioned", Behavior: "-"}}, ""},
		{"no run", []runBuild{{ID: "upgrade:c", State: "none"}}, ""},
		{"moved", []runBuild{
			{ID: "upgrade:c", State: "running", Build: "rackroll:B", Behavior: "pinned"},
			{ID: "cluster:c", State: "running", Build: "rackroll:A", Behavior: "pinned"},
			{ID: "monitor:c", State: "none"},
		}, "builds: upgrade:c rackroll:B pinned, cluster:c rackroll:A pinned"},
		{"a closed upgrade is not listed", []runBuild{
			{ID: "upgrade:c", State: "completed", Build: "rackroll:A", Behavior: "pinned"},
			{ID: "cluster:c", State: "running", Build: "rackroll:B", Behavior: "pinned"},
		}, "builds: cluster:c rackroll:B pinned"},
	} {
		if got := buildsLine(tc.rows); got != tc.want {
			t.Errorf("%s: buildsLine = %q, want %q", tc.name, got, tc.want)
		}
	}
}
