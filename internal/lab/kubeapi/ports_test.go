package kubeapi

import "testing"

// The lab's ports are distinct, free, and below the ephemeral range, where
// no outgoing connection can take them before a member binds them.
func TestFreePortsBelowTheEphemeralRange(t *testing.T) {
	lo, hi := belowEphemeral()
	ports, err := freePorts(20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p < lo || p >= hi {
			t.Errorf("port %d outside [%d, %d)", p, lo, hi)
		}
		if seen[p] {
			t.Errorf("port %d twice", p)
		}
		seen[p] = true
		if portBusy(p) {
			t.Errorf("port %d is not free", p)
		}
	}
}
