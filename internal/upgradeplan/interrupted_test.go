package upgradeplan

import (
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
)

func withStatus(c model.Cluster, name, status string) model.Cluster {
	for i := range c.BMMs {
		if c.BMMs[i].Name == name {
			c.BMMs[i].DetailedStatus = status
		}
	}
	return c
}

// A resumed upgrade redoes the KCP an interrupted run left mid-step
// (cancelled in its reimage, failed at the installer's eject, killed after
// the reimage) instead of refusing for ever that the set is not full; a
// fresh upgrade, an older history (LegacyControlPlane), a second KCP out or an
// Unhealthy one still refuse.
func TestResumeRedoesInterruptedKCP(t *testing.T) {
	oneRack := func() model.Cluster {
		return atVersion(modeltest.Cluster("rack1-m1:kcp", "rack1-m2:kcp", "rack1-m3:kcp", "rack1-c1:compute"), "4.2.0", "rack1-m1")
	}
	fourRack := func() model.Cluster {
		return atVersion(modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp", "rack3-m1:kcp", "rack4-m1:kcp", "rack1-c1:compute"), "4.2.0", "rack4-m1")
	}
	for _, tc := range []struct {
		name    string
		cluster model.Cluster
		resume  bool
		opts    []Option
		first   string // the first control-plane step; "" when refused
		refusal string
	}{
		{"one rack, left Deprovisioning", withStatus(oneRack(), "rack1-m2", model.BMMDeprovisioning), true, nil, "rack1-m2:reimage", ""},
		{"one rack, left Provisioning", withStatus(oneRack(), "rack1-m2", model.BMMProvisioning), true, nil, "rack1-m2:reimage", ""},
		{"one rack, left Error", withStatus(oneRack(), "rack1-m2", model.BMMError), true, nil, "rack1-m2:reimage", ""},
		{"four racks, spare promoted, swap left Provisioning", withStatus(fourRack(), "rack1-m1", model.BMMProvisioning), true, nil, "rack1-m1:swap", ""},
		{"not a resume", withStatus(oneRack(), "rack1-m2", model.BMMProvisioning), false, nil, "", "rack1-m2 is Provisioning"},
		{"an older history", withStatus(oneRack(), "rack1-m2", model.BMMProvisioning), true, []Option{LegacyControlPlane()}, "", "rack1-m2 is Provisioning"},
		{"a KCP out that is not the next step", withStatus(oneRack(), "rack1-m3", model.BMMProvisioning), true, nil, "", "rack1-m3 is Provisioning"},
		{"two KCPs out", withStatus(withStatus(oneRack(), "rack1-m2", model.BMMError), "rack1-m3", model.BMMError), true, nil, "", "rack1-m3 is Error"},
		{"marked Unhealthy", atVersion(modeltest.Cluster("rack1-m1:kcp", "rack1-m2:kcp!", "rack1-m3:kcp", "rack1-c1:compute"), "4.2.0", "rack1-m1"),
			true, nil, "", "rack1-m2 is unhealthy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Build(tc.cluster, "4.2.0", model.UpdateStrategy{}, tc.resume, tc.opts...)
			if tc.refusal != "" {
				if err == nil || !strings.Contains(err.Error(), "KCP set is not full: "+tc.refusal) {
					t.Fatalf("want refused for %q, got %v", tc.refusal, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range p.ControlPlane {
				if !s.Skip {
					if got := s.BMM + ":" + string(s.Action); got != tc.first {
						t.Fatalf("first step %s, want %s", got, tc.first)
					}
					return
				}
			}
			t.Fatalf("no control-plane step, want %s first", tc.first)
		})
	}
}

// A resume finds the retire half-done (the last KCP relabelled spare, not
// powered off): it finishes it, and only then; a spare already Available
// or on the target is left alone.
func TestResumeFinishesInterruptedRetire(t *testing.T) {
	halfRetired := func() model.Cluster {
		return atVersion(modeltest.Cluster("rack1-m1:kcp-spare", "rack2-m1:kcp", "rack1-c1:compute", "rack2-c1:compute"), "4.2.0", "rack2-m1")
	}
	fourRack := atVersion(modeltest.Cluster("rack1-m1:kcp-spare", "rack2-m1:kcp", "rack3-m1:kcp", "rack4-m1:kcp", "rack1-c1:compute"), "4.2.0",
		"rack2-m1", "rack3-m1", "rack4-m1")
	for _, tc := range []struct {
		name    string
		cluster model.Cluster
		resume  bool
		want    string
	}{
		{"two racks, relabelled, still on", halfRetired(), true, "rack1-m1:retire"},
		{"four racks, relabelled, still on", fourRack, true, "rack1-m1:retire"},
		{"retired: Available", withStatus(halfRetired(), "rack1-m1", model.BMMAvailable), true, ""},
		{"not a resume", halfRetired(), false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := kcpSteps(t, tc.cluster, tc.resume); got != tc.want {
				t.Fatalf("steps %q, want %q", got, tc.want)
			}
		})
	}
}

// A spare on the target that never joined (the run was cut between its
// reimage and its promotion) is promoted before the old KCP retires, not
// skipped: skipping it retired the only KCP (0 KCPs, 2 spares;
// TestPropertyConvergeAfterInterruptions seed 20261212).
func TestUpgradedSpareThatNeverJoinedIsPromoted(t *testing.T) {
	c := atVersion(modeltest.Cluster("rack1-m1:kcp", "rack2-m1:kcp-spare", "rack1-c1:compute", "rack2-c1:compute"), "4.2.0", "rack2-m1")
	for _, resume := range []bool{true, false} {
		if got, want := kcpSteps(t, c, resume), "rack2-m1:upgrade-spare rack1-m1:retire"; got != want {
			t.Fatalf("resume %v: steps %q, want %q", resume, got, want)
		}
	}
	p, err := Build(c, "4.2.0", model.UpdateStrategy{}, true, LegacyControlPlane())
	if err != nil {
		t.Fatal(err)
	}
	if !p.ControlPlane[0].Skip {
		t.Fatalf("older histories keep skipping it: %+v", p.ControlPlane)
	}
}
