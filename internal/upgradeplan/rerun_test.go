package upgradeplan

import (
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
)

// The control-plane steps a run would take (skipped ones left out).
func kcpSteps(t *testing.T, c model.Cluster, resume bool) string {
	t.Helper()
	p, err := Build(c, "4.2.0", model.UpdateStrategy{}, resume)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range p.ControlPlane {
		if !s.Skip {
			got = append(got, s.BMM+":"+string(s.Action))
		}
	}
	return strings.Join(got, " ")
}

func atVersion(c model.Cluster, version string, names ...string) model.Cluster {
	for i := range c.BMMs {
		for _, n := range names {
			if c.BMMs[i].Name == n {
				c.BMMs[i].RuntimeVersion = version
			}
		}
	}
	return c
}

// A re-run finds the control plane where the interrupted run left it and
// takes only the steps that restore the table: one KCP more or less than
// it wants is never the outcome.
func TestRerunControlPlaneConverges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cluster model.Cluster
		want    string
	}{
		{"two racks, phase done: the retired spare keeps its version",
			atVersion(modeltest.Cluster("rack1-m1:kcp-spare~", "rack2-m1:kcp", "rack1-c1:compute", "rack2-c1:compute"), "4.2.0", "rack2-m1"), ""},
		{"two racks, spare promoted, old KCP not yet retired",
			atVersion(modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp", "rack1-c1:compute", "rack2-c1:compute"), "4.2.0", "rack2-m1"), "rack1-m1:retire"},
		{"two racks, nothing done yet",
			modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp-spare", "rack1-c1:compute", "rack2-c1:compute"), "rack2-m1:upgrade-spare rack1-m1:retire"},
		{"four racks, interrupted after the last swap: one retires",
			atVersion(modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp", "rack3-m1:kcp", "rack4-m1:kcp", "rack1-c1:compute"), "4.2.0",
				"rack1-m1", "rack2-m1", "rack3-m1", "rack4-m1"), "rack4-m1:retire"},
		{"four racks, done: nothing",
			atVersion(modeltest.Cluster("rack1-m1:kcp-spare~", "rack2-m1:kcp", "rack3-m1:kcp", "rack4-m1:kcp", "rack1-c1:compute"), "4.2.0",
				"rack2-m1", "rack3-m1", "rack4-m1"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := kcpSteps(t, tc.cluster, true); got != tc.want {
				t.Fatalf("steps = %q, want %q", got, tc.want)
			}
		})
	}
}

// A fresh plan after a cancelled run says what it will not redo: the
// spare's step is skipped because the active KCPs run the target (not
// because the spare does), and the servers the earlier run reached are
// counted.
func TestRerunPlanSaysWhatIsSkippedAndWhy(t *testing.T) {
	c := atVersion(modeltest.Cluster("rack1-m1:kcp-spare", "rack2-m1:kcp", "rack1-c1:compute", "rack2-c1:compute"), "4.2.0", "rack2-m1", "rack1-c1")
	p, err := Build(c, "4.2.0", model.UpdateStrategy{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.ControlPlane) != 2 || !p.ControlPlane[0].Skip || !strings.Contains(p.ControlPlane[0].Why, "the active KCPs already run 4.2.0") ||
		!p.ControlPlane[0].Kept || !p.ControlPlane[1].Skip || p.ControlPlane[1].Why != "already at 4.2.0" || p.ControlPlane[1].Kept {
		t.Fatalf("control plane = %+v", p.ControlPlane)
	}
	if p.AtTarget != 1 || p.Resume {
		t.Fatalf("atTarget = %d resume = %v, want 1 (rack1-c1) and a fresh plan", p.AtTarget, p.Resume)
	}
	c = atVersion(modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp", "rack3-m1:kcp", "rack1-c1:compute"), "4.2.0", "rack1-m1")
	p, err = Build(c, "4.2.0", model.UpdateStrategy{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !p.ControlPlane[0].Skip || p.ControlPlane[0].Why != "already at 4.2.0" || p.ControlPlane[1].Skip || p.ControlPlane[1].Why != "" {
		t.Fatalf("control plane = %+v", p.ControlPlane)
	}
}
