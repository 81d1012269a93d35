package upgradeplan

import (
	"strings"
	"testing"
)

func TestLeftBehindAndCompletion(t *testing.T) {
	unit := func(name string, states ...string) Unit {
		var ss []string
		for i := range states {
			ss = append(ss, name+"-s"+string(rune('1'+i)))
		}
		u := NewUnit(name, ss, 1)
		for i, st := range states {
			u.Apply(ServerStatus{Name: ss[i], State: st})
		}
		return Unit{Kind: UnitRack, UnitStatus: &u}
	}
	for _, tc := range []struct {
		name     string
		units    []Unit
		left     string
		version  string
		keepMark bool
		msg      string
	}{
		{"all upgraded", []Unit{unit("cp", StateSucceeded, StateSkipped), unit("rack1", StateSucceeded)},
			"", "4.2.0", false, "Runtime upgrade to 4.2.0 completed"},
		{"one failed in a rack", []Unit{unit("cp", StateSucceeded), unit("rack1", StateSucceeded, StateFailed)},
			"rack1-s2", "", true, "completed except rack1-s2 (failed; runtime mixed: 4.1.2 and 4.2.0): start the upgrade to 4.2.0 again"},
		{"failures in two units, in unit order", []Unit{unit("a", StateFailed, StateSucceeded), unit("rack2", StateFailed)},
			"a-s1 rack2-s1", "", true, "completed except a-s1, rack2-s1 ("},
	} {
		left := LeftBehind(tc.units...)
		if got := strings.Join(left, " "); got != tc.left {
			t.Fatalf("%s: left behind = %q, want %q", tc.name, got, tc.left)
		}
		v, keep, msg := Completion("4.1.2", "4.2.0", left)
		if v != tc.version || keep != tc.keepMark || !strings.Contains(msg, tc.msg) {
			t.Fatalf("%s: Completion = %q %v %q, want %q %v containing %q", tc.name, v, keep, msg, tc.version, tc.keepMark, tc.msg)
		}
	}
}
