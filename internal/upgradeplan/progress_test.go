package upgradeplan

import (
	"slices"
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

func st(name, state string) ServerStatus { return ServerStatus{Name: name, State: state} }

// Apply folds server states into a unit: each server only moves forward,
// and the counts always follow the servers.
func TestUnitApply(t *testing.T) {
	for _, tc := range []struct {
		name                       string
		reports                    [][]ServerStatus
		states                     []string // of s1, s2, s3
		succeeded, failed, skipped int
		running, failedNames       []string
	}{
		{name: "nothing yet", states: []string{StatePending, StatePending, StatePending}},
		{name: "started", reports: [][]ServerStatus{{st("s1", StateRunning), st("s2", StateRunning)}},
			states: []string{StateRunning, StateRunning, StatePending}, running: []string{"s1", "s2"}},
		{name: "outcomes", reports: [][]ServerStatus{{st("s1", StateSucceeded), {Name: "s2", State: StateFailed, Error: "disk"}, st("s3", StateSkipped)}},
			states: []string{StateSucceeded, StateFailed, StateSkipped}, succeeded: 2, failed: 1, skipped: 1, failedNames: []string{"s2"}},
		{name: "a late Running report does not undo a result",
			reports: [][]ServerStatus{{st("s1", StateSucceeded)}, {st("s1", StateRunning), st("s2", StatePending)}},
			states:  []string{StateSucceeded, StatePending, StatePending}, succeeded: 1},
		{name: "the same result twice counts once",
			reports: [][]ServerStatus{{st("s1", StateSucceeded)}, {st("s1", StateSucceeded)}},
			states:  []string{StateSucceeded, StatePending, StatePending}, succeeded: 1},
		{name: "a server not in the unit is ignored", reports: [][]ServerStatus{{st("other", StateFailed)}},
			states: []string{StatePending, StatePending, StatePending}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := NewUnit("rack1", []string{"s1", "s2", "s3"}, 2)
			for _, r := range tc.reports {
				u.Apply(r...)
			}
			var states []string
			for _, s := range u.Servers {
				states = append(states, s.State)
			}
			if !slices.Equal(states, tc.states) {
				t.Fatalf("states = %v, want %v", states, tc.states)
			}
			if u.Succeeded != tc.succeeded || u.Failed != tc.failed || u.Skipped != tc.skipped || u.Total != 3 {
				t.Fatalf("counts = %d/%d/%d of %d, want %d/%d/%d of 3", u.Succeeded, u.Failed, u.Skipped, u.Total, tc.succeeded, tc.failed, tc.skipped)
			}
			if !slices.Equal(u.Running(), tc.running) || !slices.Equal(u.FailedNames(), tc.failedNames) {
				t.Fatalf("running %v failed %v, want %v and %v", u.Running(), u.FailedNames(), tc.running, tc.failedNames)
			}
		})
	}
}

// cancel-update: the servers that never started end Cancelled.
func TestUnitCancelPending(t *testing.T) {
	u := NewUnit("rack1", []string{"s1", "s2", "s3"}, 3)
	u.Apply(st("s1", StateSucceeded), st("s2", StateRunning))
	u.CancelPending()
	if got := []string{u.Servers[0].State, u.Servers[1].State, u.Servers[2].State}; !slices.Equal(got, []string{StateSucceeded, StateRunning, StateCancelled}) {
		t.Fatalf("states = %v", got)
	}
}

// The pause after a unit: below its threshold (a management group or a
// rack, each in its words), or after a rack under PauseAfterRack when
// another rack follows.
func TestUnitPauses(t *testing.T) {
	done := func(name string, required int, states ...string) UnitStatus {
		var names []string
		for i := range states {
			names = append(names, name+"-"+string(rune('1'+i)))
		}
		u := NewUnit(name, names, required)
		for i, s := range states {
			u.Apply(st(names[i], s))
		}
		return u
	}
	pauseAfter := model.UpdateStrategy{StrategyType: model.StrategyPauseAfterRack}
	for _, tc := range []struct {
		name, got, want string
	}{
		{"group met", done("a", 2, StateSucceeded, StateSkipped, StateFailed).Missed(true), ""},
		{"group missed", done("a", 2, StateSucceeded, StateFailed, StateFailed).Missed(true),
			"management group a: 1 of 3 servers upgraded, 2 needed (50 %); failed: a-2, a-3. Fix them, then continue-update or cancel-update"},
		{"rack met", done("rack1", 1, StateSucceeded, StateFailed).Missed(false), ""},
		{"rack missed", done("rack1", 2, StateSucceeded, StateFailed).Missed(false),
			"rack rack1 missed its threshold: 1 of 2 servers upgraded, 2 needed; failed: rack1-2. Continue-update to go on, cancel-update to stop"},
		{"rack missed, none failed (cancelled)", done("rack1", 2, StateSucceeded, StateCancelled).Missed(false),
			"rack rack1 missed its threshold: 1 of 2 servers upgraded, 2 needed; failed: none. Continue-update to go on, cancel-update to stop"},
		{"pause after a rack", done("rack1", 1, StateSucceeded).PauseAfter(pauseAfter, "rack2"),
			"rack rack1 done (1 of 1 upgraded); paused after the rack: continue-update to start rack rack2"},
		{"no pause after the last rack", done("rack1", 1, StateSucceeded).PauseAfter(pauseAfter, ""), ""},
		{"no pause under Rack", done("rack1", 1, StateSucceeded).PauseAfter(model.UpdateStrategy{StrategyType: model.StrategyRack}, "rack2"), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, tc.got, tc.want)
		}
	}
}

// A rack child starts Parallel servers at once, all when 0 or too many.
func TestRackFirstWave(t *testing.T) {
	for parallel, want := range map[int][]string{0: {"a", "b", "c"}, 2: {"a", "b"}, 3: {"a", "b", "c"}, 5: {"a", "b", "c"}} {
		if got := (Rack{Servers: []string{"a", "b", "c"}, Parallel: parallel}).FirstWave(); !slices.Equal(got, want) {
			t.Errorf("Parallel %d: first wave %v, want %v", parallel, got, want)
		}
	}
}

// A unit whose failures already exceed what its threshold allows says so.
func TestUnreachable(t *testing.T) {
	u := UnitStatus{Name: "a", Total: 3, Required: 2, Servers: []ServerStatus{
		{Name: "x", State: StatePending}, {Name: "y", State: StatePending}, {Name: "z", State: StatePending}}}
	require.Empty(t, u.Unreachable(2), "nothing ran yet")
	u.Apply(ServerStatus{Name: "x", State: StateFailed})
	require.Empty(t, u.Unreachable(2), "one failed: the two left can still make it")
	u.Apply(ServerStatus{Name: "y", State: StateFailed})
	require.Contains(t, u.Unreachable(2), "2 of 3 servers failed (x, y), so it can no longer reach 2")
}

// A held batch's servers are Pending again; a server that finished keeps
// its state.
func TestUnitUnstart(t *testing.T) {
	u := NewUnit("rack2", []string{"s1", "s2", "s3"}, 3)
	u.Apply(st("s1", StateRunning), st("s2", StateRunning), st("s3", StateSucceeded))
	u.Unstart("s1", "s3")
	if got := []string{u.StateOf("s1"), u.StateOf("s2"), u.StateOf("s3")}; !slices.Equal(got, []string{StatePending, StateRunning, StateSucceeded}) {
		t.Fatalf("states after Unstart = %v", got)
	}
}
