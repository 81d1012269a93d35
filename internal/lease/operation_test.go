package lease

import "testing"

// What takes a server out of service takes a disruptive lease; start,
// cordon and uncordon only keep others off the BMM.
func TestDisruptive(t *testing.T) {
	for op, want := range map[Operation]bool{
		OpRestart: true, OpPowerOff: true, OpReimage: true, OpReplace: true, OpUpgrade: true,
		OpRemediation: true, OpFailover: true, OpReplaceRoles: true,
		OpStart: false, OpCordon: false, OpUncordon: false,
	} {
		if got := op.Disruptive(); got != want {
			t.Errorf("%s: disruptive %v, want %v", op, got, want)
		}
	}
}
