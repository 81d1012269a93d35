package upgradeplan

import (
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
)

func TestGetsFirmwareStep(t *testing.T) {
	const to = "2.0.0"
	for _, tc := range []struct {
		name string
		b    model.BMM
		want bool
	}{
		{"compute below the target", model.BMM{Roles: []model.Role{model.RoleCompute}, RuntimeVersion: "1.9.0"}, true},
		{"compute at the target (a re-run: firmware only)", model.BMM{Roles: []model.Role{model.RoleCompute}, RuntimeVersion: to}, true},
		{"management at the target", model.BMM{Roles: []model.Role{model.RoleManagement}, RuntimeVersion: to}, true},
		{"KCP below the target", model.BMM{Roles: []model.Role{model.RoleKCP}, RuntimeVersion: "1.9.0"}, true},
		{"KCP at the target: its step is skipped", model.BMM{Roles: []model.Role{model.RoleKCP}, RuntimeVersion: to}, false},
		{"spare at the target", model.BMM{Roles: []model.Role{model.RoleKCPSpare}, RuntimeVersion: to}, false},
		{"out of service", model.BMM{Roles: []model.Role{model.RoleCompute}, RuntimeVersion: "1.9.0",
			DetailedStatusMessage: model.UnhealthyMessage}, false},
	} {
		if got := GetsFirmwareStep(tc.b, to); got != tc.want {
			t.Errorf("%s: GetsFirmwareStep = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The version the cluster already runs is "nothing to upgrade", unless
// its firmware baseline is declared (FirmwareRerun): then a run for the
// firmware alone, every server at the target, no control-plane step.
func TestFirmwareRerunAtTheCurrentVersion(t *testing.T) {
	c := atVersion(modeltest.Cluster("rack1-m1:kcp-spare~", "rack2-m1:kcp", "rack1-c1:compute", "rack2-c1:compute"), "4.2.0",
		"rack2-m1", "rack1-c1", "rack2-c1")
	c.RuntimeVersion = "4.2.0"
	if _, err := Build(c, "4.2.0", model.UpdateStrategy{}, false); err == nil || !strings.Contains(err.Error(), "nothing to upgrade") {
		t.Fatalf("without a baseline: %v, want nothing to upgrade", err)
	}
	p, err := Build(c, "4.2.0", model.UpdateStrategy{}, false, FirmwareRerun())
	if err != nil {
		t.Fatal(err)
	}
	if !p.FirmwareOnly || p.Resume {
		t.Errorf("FirmwareOnly %v, Resume %v: want a firmware run, not a resume", p.FirmwareOnly, p.Resume)
	}
	for _, s := range p.ControlPlane {
		if !s.Skip {
			t.Errorf("control-plane step %s %s not skipped", s.BMM, s.Action)
		}
	}
	if p.AtTarget != 2 {
		t.Errorf("AtTarget %d, want the two computes", p.AtTarget)
	}
	if _, err := Build(c, "4.1.2", model.UpdateStrategy{}, false, FirmwareRerun()); err == nil {
		t.Error("a downgrade is refused with a baseline too")
	}
}
