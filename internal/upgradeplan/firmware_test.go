package upgradeplan

import (
	"testing"

	"github.com/rackroll/rackroll/internal/model"
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
