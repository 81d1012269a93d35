package upgradeplan

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
)

// A four-rack site as placement lays it out; rack10 exists to prove natural order.
func site() model.Cluster {
	c := modeltest.Cluster(
		"rack1-mgmt1:kcp", "rack2-mgmt1:kcp", "rack3-mgmt1:kcp", "rack10-mgmt1:kcp-spare",
		"rack1-mgmt2:management/a", "rack2-mgmt2:management/b", "rack3-mgmt2:management/a", "rack10-mgmt2:management/b",
		"rack1-mgmt3:management/a", "rack2-mgmt3:management/b",
	)
	for _, r := range []string{"rack10", "rack2", "rack1", "rack3"} {
		for i := 1; i <= 7; i++ {
			c.BMMs = append(c.BMMs, modeltest.Cluster(fmt.Sprintf("%s-c%d:compute", r, i)).BMMs...)
		}
	}
	return c
}

func intp(i int) *int { return &i }

func TestBuildOrdersEveryPhaseLikeTheReference(t *testing.T) {
	p, err := Build(site(), "4.2.0", model.UpdateStrategy{}, false)
	if err != nil {
		t.Fatal(err)
	}
	var kcp []string
	for _, s := range p.ControlPlane {
		kcp = append(kcp, s.BMM+":"+string(s.Action))
	}
	if got := strings.Join(kcp, " "); got != "rack10-mgmt1:upgrade-spare rack1-mgmt1:swap rack2-mgmt1:swap rack3-mgmt1:retire" {
		t.Fatalf("KCP order = %s", got)
	}
	if len(p.Management) != 2 || p.Management[0].Name != "a" || p.Management[1].Name != "b" {
		t.Fatalf("groups = %+v", p.Management)
	}
	if got := fmt.Sprint(p.Management[0].Stages); got != "[[rack1-mgmt2 rack1-mgmt3] [rack3-mgmt2]]" || p.Management[0].Required != 2 {
		t.Fatalf("group a = %s required %d", got, p.Management[0].Required)
	}
	var racks []string
	for _, r := range p.Racks {
		racks = append(racks, r.Name)
		if len(r.Servers) != 7 || r.Required != 6 || r.Parallel != 7 {
			t.Fatalf("rack %s = %+v (7 servers at 80%% need 6)", r.Name, r)
		}
	}
	if got := strings.Join(racks, " "); got != "rack1 rack2 rack3 rack10" {
		t.Fatalf("rack order = %s", got)
	}
	// 3 KCP reimages + 4 management stages + the canary (rack1-c1, -c2) +
	// 4 racks + 3 waits of 15 min.
	if p.Canary == nil || fmt.Sprint(*p.Canary) != "{rack1 [rack1-c1 rack1-c2]}" {
		t.Fatalf("canary = %+v", p.Canary)
	}
	if got := p.CriticalPath(time.Minute); got != 12*time.Minute+45*time.Minute {
		t.Fatalf("critical path = %v", got)
	}
}

func TestBuildRefusesBeforeAnySideEffect(t *testing.T) {
	failed := site()
	failed.DetailedStatus, failed.DetailedStatusMessage = model.ClusterFailed, "KCP rack2-mgmt1 failed"
	sick := site()
	sick.BMMs[1].ReadyState = model.ReadyUnknown
	cases := []struct {
		name string
		c    model.Cluster
		to   string
		s    model.UpdateStrategy
		want []string
	}{
		{"same version", site(), "4.1.2", model.UpdateStrategy{}, []string{"4.1.2"}},
		{"minor skip", site(), "4.3.0", model.UpdateStrategy{}, []string{"4.2"}},
		{"downgrade", site(), "4.0.9", model.UpdateStrategy{}, []string{"4.0.9"}},
		{"bad version", site(), "four", model.UpdateStrategy{}, []string{"targetVersion"}},
		{"count above rack", site(), "4.2.0", model.UpdateStrategy{ThresholdType: model.ThresholdCountSuccess, ThresholdValue: 8}, []string{"rack rack1 has only 7"}},
		{"wait too long", site(), "4.2.0", model.UpdateStrategy{WaitTimeMinutes: intp(61)}, []string{"waitTimeMinutes"}},
		{"not running", failed, "4.2.0", model.UpdateStrategy{}, []string{"is Failed, not Running"}},
		{"kcp not full", sick, "4.2.0", model.UpdateStrategy{}, []string{"KCP set is not full", "rack2-mgmt1"}},
		{"all at once", failed, "4.3.0", model.UpdateStrategy{WaitTimeMinutes: intp(99)}, []string{"4.2", "waitTimeMinutes", "not Running"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(tc.c, tc.to, tc.s, false)
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestCountSuccessEqualToRackSizeAndMaxUnavailable(t *testing.T) {
	p, err := Build(site(), "4.2.0", model.UpdateStrategy{ThresholdType: model.ThresholdCountSuccess, ThresholdValue: 7, MaxUnavailable: 3, WaitTimeMinutes: intp(0)}, false)
	if err != nil {
		t.Fatal(err)
	}
	r := p.Racks[0]
	if r.Required != 7 || r.Parallel != 3 {
		t.Fatalf("rack = %+v", r)
	}
	// 3 KCP + 4 stages + 4 racks × 3 waves (7 servers, 3 at a time), no waits.
	if got := p.CriticalPath(time.Minute); got != 19*time.Minute {
		t.Fatalf("critical path = %v", got)
	}
}

func TestResumeSkipsServersAtTarget(t *testing.T) {
	c := site()
	c.DetailedStatus, c.DetailedStatusMessage = model.ClusterFailed, "KCP rack2-mgmt1 failed"
	for i := range c.BMMs {
		if c.BMMs[i].Name == "rack10-mgmt1" || c.BMMs[i].Name == "rack1-mgmt1" {
			c.BMMs[i].RuntimeVersion = "4.2.0"
		}
		if c.BMMs[i].Name == "rack10-mgmt1" {
			c.BMMs[i].Roles = []model.Role{model.RoleKCP} // the upgraded spare joined
		}
	}
	if _, err := Build(c, "4.2.0", model.UpdateStrategy{}, false); err == nil {
		t.Fatal("a failed cluster needs resume")
	}
	p, err := Build(c, "4.2.0", model.UpdateStrategy{}, true)
	if err != nil {
		t.Fatal(err)
	}
	skips := map[string]bool{}
	for _, s := range p.ControlPlane {
		skips[s.BMM] = s.Skip
	}
	if !skips["rack10-mgmt1"] || !skips["rack1-mgmt1"] || skips["rack2-mgmt1"] || skips["rack3-mgmt1"] {
		t.Fatalf("skips = %+v", p.ControlPlane)
	}
}

func TestSingleRackReimagesEachKCPInPlace(t *testing.T) {
	c := modeltest.Cluster("r1-m3:kcp", "r1-m1:kcp", "r1-m2:kcp", "r1-c1:compute")
	c.Name = "one"
	p, err := Build(c, "4.1.3", model.UpdateStrategy{}, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range p.ControlPlane {
		got = append(got, s.BMM+":"+string(s.Action))
	}
	if strings.Join(got, " ") != "r1-m1:reimage r1-m2:reimage r1-m3:reimage" || len(p.Management) != 0 {
		t.Fatalf("plan = %v, management %v", got, p.Management)
	}
}

// A resumed upgrade whose spare already joined: four KCPs, no spare.
func TestResumeAfterSparePromoted(t *testing.T) {
	c := site()
	c.DetailedStatus = model.ClusterFailed
	for i := range c.BMMs {
		switch c.BMMs[i].Name {
		case "rack10-mgmt1":
			c.BMMs[i].Roles = []model.Role{model.RoleKCP}
			c.BMMs[i].RuntimeVersion = "4.2.0"
		case "rack1-mgmt1":
			c.BMMs[i].RuntimeVersion = "4.2.0"
		}
	}
	if got := kcpSteps(t, c, true); got != "rack2-mgmt1:swap rack3-mgmt1:retire" {
		t.Fatalf("resumed KCP steps = %v", got)
	}
}
