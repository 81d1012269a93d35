package upgradeplan

import (
	"slices"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
)

// powerOff marks a BMM as the compute ladder leaves it: Unhealthy, off.
func powerOff(c model.Cluster, name string) model.Cluster {
	b, _ := c.BMM(name)
	b.PowerState, b.ReadyState, b.DetailedStatus = model.PowerOff, model.ReadyUnknown, model.BMMError
	return c
}

func TestOutOfService(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    model.BMM
		want string
	}{
		{"healthy", model.BMM{PowerState: model.PowerOn}, ""},
		{"failed but not marked stays in service", model.BMM{DetailedStatus: model.BMMError, DetailedStatusMessage: "reimage failed"}, ""},
		{"powered off by hand, not marked", model.BMM{PowerState: model.PowerOff}, ""},
		{"marked", model.BMM{DetailedStatusMessage: model.UnhealthyMessage, PowerState: model.PowerOn}, "marked Unhealthy by remediation: only replace returns it to service"},
		{"marked and powered off", model.BMM{DetailedStatusMessage: model.UnhealthyMessage, PowerState: model.PowerOff},
			"marked Unhealthy and powered off by remediation: only replace returns it to service"},
	} {
		if got := OutOfService(tc.b); got != tc.want {
			t.Errorf("%s: OutOfService = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// An out-of-service compute is in no rack and no threshold: a rack of
// seven with one marked plans six and needs 80 % of six.
func TestBuildSkipsOutOfServiceAndCountsThresholdsWithoutThem(t *testing.T) {
	for _, tc := range []struct {
		name     string
		marked   []string
		rack1    int // rack1's planned servers
		required int // and its threshold at 80 %
		skipped  string
	}{
		{"none", nil, 7, 6, ""},
		{"one compute", []string{"rack1-c3"}, 6, 5, "rack1-c3"},
		{"two computes", []string{"rack1-c3", "rack1-c7"}, 5, 4, "rack1-c3 rack1-c7"},
		{"a management server", []string{"rack1-mgmt2"}, 7, 6, "rack1-mgmt2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := site()
			for _, m := range tc.marked {
				b, _ := c.BMM(m)
				b.DetailedStatusMessage = model.UnhealthyMessage
				c = powerOff(c, m)
			}
			p, err := Build(c, "4.2.0", model.UpdateStrategy{}, false)
			if err != nil {
				t.Fatal(err)
			}
			if r := p.Racks[0]; r.Name != "rack1" || len(r.Servers) != tc.rack1 || r.Required != tc.required {
				t.Fatalf("rack1 = %+v, want %d servers needing %d", r, tc.rack1, tc.required)
			}
			var got []string
			for _, s := range p.Skipped {
				got = append(got, s.BMM)
				if !strings.Contains(s.Reason, "powered off by remediation") {
					t.Errorf("%s skipped for %q", s.BMM, s.Reason)
				}
			}
			if strings.Join(got, " ") != tc.skipped {
				t.Fatalf("skipped = %v, want %q", got, tc.skipped)
			}
			for _, m := range tc.marked {
				if planned(p, m) {
					t.Fatalf("%s is out of service but planned: %+v", m, p)
				}
			}
		})
	}
}

// planned reports whether any phase of p touches bmm.
func planned(p Plan, bmm string) bool {
	var all []string
	for _, k := range p.ControlPlane {
		all = append(all, k.BMM)
	}
	for _, g := range p.Management {
		for _, s := range g.Stages {
			all = append(all, s...)
		}
	}
	for _, r := range p.Racks {
		all = append(all, r.Servers...)
	}
	return strings.Contains(" "+strings.Join(all, " ")+" ", " "+bmm+" ")
}

func TestBuildDropsARackWhoseServersAreAllOutOfService(t *testing.T) {
	c := modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp-spare", "rack1-c1:compute", "rack2-c1:compute!", "rack2-c2:compute!")
	p, err := Build(c, "4.2.0", model.UpdateStrategy{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Racks) != 1 || p.Racks[0].Name != "rack1" || len(p.Skipped) != 2 {
		t.Fatalf("racks = %+v skipped = %+v", p.Racks, p.Skipped)
	}
}

// A marked spare is never upgraded or promoted by the plan. With three
// active KCPs they are reimaged in place one at a time; with one, the
// upgrade is refused until the spare is replaced.
func TestBuildWithAnOutOfServiceSpare(t *testing.T) {
	three := modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp", "rack3-m1:kcp", "rack4-m1:kcp-spare!", "rack1-c1:compute")
	p, err := Build(three, "4.2.0", model.UpdateStrategy{}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []KCPStep{{BMM: "rack1-m1", Action: KCPReimage}, {BMM: "rack2-m1", Action: KCPReimage}, {BMM: "rack3-m1", Action: KCPReimage}}
	if !slices.Equal(p.ControlPlane, want) {
		t.Fatalf("control plane = %+v, want %+v", p.ControlPlane, want)
	}
	one := modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp-spare!", "rack1-c1:compute")
	_, err = Build(one, "4.2.0", model.UpdateStrategy{}, false)
	if err == nil || !strings.Contains(err.Error(), "KCP spare rack2-m1 is marked Unhealthy by remediation; with 1 active KCP") ||
		!strings.Contains(err.Error(), "replace rack2-m1 first") {
		t.Fatalf("err = %v", err)
	}
}

// Running the same target again lists exactly the servers left behind.
func TestBuildResumeListsTheServersToFinish(t *testing.T) {
	c := modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp-spare~", "rack1-m2:management/a",
		"rack1-c1:compute", "rack1-c2:compute", "rack2-c1:compute", "rack2-c2:compute!")
	for _, b := range c.BMMs {
		if b.Name != "rack1-c2" && b.Name != "rack2-m1" {
			x, _ := c.BMM(b.Name)
			x.RuntimeVersion = "4.2.0"
		}
	}
	failed, _ := c.BMM("rack1-c2")
	failed.DetailedStatus, failed.DetailedStatusMessage = model.BMMError, "reimage of rack1-c2 failed"
	for _, tc := range []struct {
		resume bool
		want   string
	}{{false, ""}, {true, "rack1-c2"}} {
		p, err := Build(c, "4.2.0", model.UpdateStrategy{}, tc.resume)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(p.Finishing, " "); got != tc.want || p.Resume != tc.resume {
			t.Fatalf("resume %v: finishing = %q, want %q", tc.resume, got, tc.want)
		}
	}
}
