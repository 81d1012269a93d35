package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
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

// The plan says which servers a re-run finishes and which are skipped,
// and why.
func TestPlanShowsFinishingAndSkipped(t *testing.T) {
	c := modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp-spare~", "rack1-c1:compute", "rack1-c2:compute", "rack2-c1:compute!")
	for _, n := range []string{"rack1-m1", "rack1-c1"} {
		b, _ := c.BMM(n)
		b.RuntimeVersion = "4.2.0"
	}
	for _, tc := range []struct {
		name   string
		resume bool
		want   []string
		absent string
	}{
		{"a first run", false, []string{"Skipped, out of service: rack2-c1", "rack2-c1 compute marked Unhealthy by remediation",
			"1 of the planned servers already run 4.2.0 (an earlier run reached them): each is skipped and counted as upgraded",
			"rack1-m1 swap already at 4.2.0: skipped", "the active KCPs already run 4.2.0; the spare waits on its version by design: skipped"}, "again"},
		{"the same target again", true, []string{"Runs the upgrade to 4.2.0 again: finishes the 1 servers not yet at it (the rest are skipped): rack1-c2",
			"Skipped, out of service: rack2-c1"}, "nothing to reimage"},
	} {
		p, err := upgradeplan.Build(c, "4.2.0", model.UpdateStrategy{}, tc.resume)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := writePlan(&b, "table", p, time.Minute, p); err != nil {
			t.Fatal(err)
		}
		out := strings.Join(strings.Fields(b.String()), " ")
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: plan lacks %q:\n%s", tc.name, w, b.String())
			}
		}
		if strings.Contains(out, tc.absent) {
			t.Errorf("%s: plan says %q:\n%s", tc.name, tc.absent, b.String())
		}
	}
}

// The version the cluster runs is "nothing to upgrade", unless it
// declares a firmware baseline: then `upgrade start` and `upgrade plan`
// plan, as the workflow does, a run for the firmware alone, and say so.
func TestPlanSaysARunForTheFirmware(t *testing.T) {
	c := modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp-spare~", "rack1-c1:compute", "rack2-c1:compute")
	c.RuntimeVersion = "4.2.0"
	for _, n := range []string{"rack1-m1", "rack1-c1", "rack2-c1"} {
		b, _ := c.BMM(n)
		b.RuntimeVersion = "4.2.0"
	}
	st := api.ClusterState{Cluster: c}
	if _, err := upgradeplan.Build(c, "4.2.0", model.UpdateStrategy{}, false, planOptions(st, "4.2.0")...); err == nil ||
		!strings.Contains(err.Error(), "nothing to upgrade") {
		t.Fatalf("no baseline: %v, want nothing to upgrade", err)
	}
	st.Firmware = map[string]firmware.Baseline{"4.2.0": {{Match: firmware.Match{Manufacturer: "Dell Inc."}}}}
	p, err := upgradeplan.Build(c, "4.2.0", model.UpdateStrategy{}, false, planOptions(st, "4.2.0")...)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Join(planNotes(p), "\n")
	if !strings.Contains(out, "Runs the upgrade to 4.2.0 again for its firmware baseline: the cluster already runs it; nothing is reimaged") ||
		strings.Contains(out, "an earlier run reached them") {
		t.Errorf("notes:\n%s", out)
	}
}

func TestRuntimeLine(t *testing.T) {
	mixed := modeltest.Cluster("rack1-m1:kcp", "rack1-c1:compute")
	b, _ := mixed.BMM("rack1-m1")
	b.RuntimeVersion = "4.2.0"
	for _, tc := range []struct {
		name string
		st   api.ClusterState
		want string
	}{
		{"one version", api.ClusterState{Cluster: modeltest.Cluster("rack1-m1:kcp")}, "runtime: 4.1.2"},
		{"left behind", api.ClusterState{Cluster: mixed, UpgradeTarget: "4.2.0"},
			"runtime: mixed (4.1.2, 4.2.0); the upgrade to 4.2.0 owes servers: `starter upgrade start --cluster site-a --version 4.2.0` finishes them"},
		{"while the upgrade runs", api.ClusterState{Cluster: func() model.Cluster { c := mixed; c.DetailedStatus = model.ClusterUpdating; return c }(),
			UpgradeTarget: "4.2.0"}, "runtime: mixed (4.1.2, 4.2.0)"},
	} {
		if got := runtimeLine(tc.st); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
