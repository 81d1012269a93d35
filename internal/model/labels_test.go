package model

import (
	"maps"
	"testing"
)

func TestNodeLabelDrift(t *testing.T) {
	mgmt := ManagedNodeLabels(BMM{Roles: []Role{RoleManagement}, ManagementGroup: "b"})
	compute := ManagedNodeLabels(BMM{Roles: []Role{RoleCompute}})
	for _, c := range []struct {
		name       string
		want, have map[string]string
		drift      map[string]string
	}{
		{"as wanted", mgmt, map[string]string{LabelRole: "management", LabelManagementGroup: "b", "other": "x"}, nil},
		{"no group wanted, none shown", compute, map[string]string{LabelRole: "compute"}, nil},
		// A KCP relabelled management, registered again by its kubelet.
		{"role moved back by a registration", mgmt, map[string]string{LabelRole: "kcp"},
			map[string]string{LabelRole: "management", LabelManagementGroup: "b"}},
		{"group lost", mgmt, map[string]string{LabelRole: "management"}, map[string]string{LabelManagementGroup: "b"}},
		{"group left over", compute, map[string]string{LabelRole: "compute", LabelManagementGroup: "a"}, map[string]string{LabelManagementGroup: ""}},
		{"no labels at all", compute, nil, map[string]string{LabelRole: "compute"}},
	} {
		if got := NodeLabelDrift(c.want, c.have); !maps.Equal(got, c.drift) {
			t.Errorf("%s: drift %v, want %v", c.name, got, c.drift)
		}
	}
	if got := ManagedOf(map[string]string{LabelRole: "kcp", LabelRack: "r1"}); !maps.Equal(got, map[string]string{LabelRole: "kcp", LabelManagementGroup: ""}) {
		t.Errorf("ManagedOf: %v", got)
	}
}
