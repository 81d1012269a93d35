package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
	"github.com/rackroll/rackroll/internal/upgradeplan"
)

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
