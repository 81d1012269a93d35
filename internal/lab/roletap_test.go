package lab

import (
	"testing"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
)

// A kubelet registering its Node again shows the role it was set up with:
// no promotion, so the machine's etcd member is not told; a relabel is.
func TestRoleTapIgnoresARegistrationsRole(t *testing.T) {
	t.Parallel()
	tap := newRoleTap(events.New(nil), []placement.Assignment{{Name: "m1", Role: model.RoleManagement}})
	var told []bool
	tap.kcp = func(_ string, kcp bool) { told = append(told, kcp) }
	kcp := map[string]string{model.LabelRole: string(model.RoleKCP)}
	tap.Emit(events.NodeLabel, "m1", "r1", map[string]any{"labels": kcp, events.Registered: true})
	if r := tap.role("m1"); r != model.RoleManagement || len(told) != 0 {
		t.Fatalf("after a registration: role %s, told %v", r, told)
	}
	tap.Emit(events.NodeLabel, "m1", "r1", map[string]any{"labels": kcp})
	if r := tap.role("m1"); r != model.RoleKCP || len(told) != 1 || !told[0] {
		t.Fatalf("after a relabel: role %s, told %v", r, told)
	}
}
