package lease

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

func TestControlPlaneIsTheActiveKCPsNotTheSpare(t *testing.T) {
	c := model.Cluster{BMMs: []model.BMM{
		{Name: "r10-m1", Roles: []model.Role{model.RoleKCP}},
		{Name: "r2-m1", Roles: []model.Role{model.RoleKCP}},
		{Name: "r4-m1", Roles: []model.Role{model.RoleKCPSpare}},
		{Name: "r1-m2", Roles: []model.Role{model.RoleManagement}},
		{Name: "r1-m1", Roles: []model.Role{model.RoleKCP}},
	}}
	got := strings.Join(ControlPlane(c), ",")
	if got != "r1-m1,r2-m1,r10-m1" {
		t.Errorf("ControlPlane = %s, want r1-m1,r2-m1,r10-m1 (natural order, spare and management left out)", got)
	}
}

func TestFresh(t *testing.T) {
	now := time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { x := now.Add(-d); return &x }
	cases := []struct {
		name string
		at   *time.Time
		ok   bool
	}{
		{"no observation: left to Check", nil, true},
		{"seconds old", at(3 * time.Second), true},
		{"exactly the limit", at(MaxObservationAge), true},
		{"older than the limit", at(MaxObservationAge + time.Second), false},
	}
	for _, tc := range cases {
		err := Fresh(Request{BMM: "r1-m1", ObservedAt: tc.at}, now)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && (!strings.Contains(err.Error(), "r1-m1") || !strings.Contains(err.Error(), "observe again")) {
			t.Errorf("%s: %v should name the BMM and say to observe again", tc.name, err)
		}
	}
}
