package api

import "testing"

// A rack (or management stage) named like a server never shares its
// upgrade child's workflow id.
func TestUnitAndServerIDsNeverCollide(t *testing.T) {
	for _, name := range []string{"rack1", "r1", "management-a-stage1"} {
		if RackUpgradeID("site-a", name) == ServerUpgradeID("site-a", name) {
			t.Fatalf("%q: rack and server ids collide: %s", name, RackUpgradeID("site-a", name))
		}
	}
}
