package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRolloutFlagsRefuseBadInputNamingFlagAndValue(t *testing.T) {
	ok := rolloutFlags{build: "b2", deployment: "rackroll", wait: 15 * time.Minute, drainWait: 10 * time.Minute}
	require.NoError(t, ok.check(false))
	require.NoError(t, rolloutFlags{deployment: "rackroll", wait: time.Minute, drainWait: time.Minute}.check(true), "rollback may omit --build")
	with := func(edit func(*rolloutFlags)) rolloutFlags { f := ok; edit(&f); return f }
	for _, tc := range []struct {
		name string
		f    rolloutFlags
		want []string
	}{
		{"no build", with(func(f *rolloutFlags) { f.build = "" }), []string{"--build is required"}},
		{"reserved build", with(func(f *rolloutFlags) { f.build = "__b" }), []string{"--build", `"__b"`, "__"}},
		{"deployment with a dot", with(func(f *rolloutFlags) { f.deployment = "rack.roll" }), []string{"--deployment", `"rack.roll"`, "'.'"}},
		{"ramp 0", with(func(f *rolloutFlags) { f.ramp, f.rampSet = 0, true }), []string{"--ramp 0", "1..99"}},
		{"ramp 100", with(func(f *rolloutFlags) { f.ramp, f.rampSet = 100, true }), []string{"--ramp 100", "1..99", "leave --ramp out"}},
		{"no wait", with(func(f *rolloutFlags) { f.wait = 0 }), []string{"--wait 0s", "above 0"}},
		{"negative drain wait", with(func(f *rolloutFlags) { f.drainWait = -time.Second }), []string{"--drain-wait -1s", "above 0"}},
		{"scale-down without namespace", with(func(f *rolloutFlags) { f.scaleDown = "rackroll-worker-a" }), []string{`--scale-down "rackroll-worker-a"`, "NAMESPACE/DEPLOYMENT"}},
		{"scale-down bad name", with(func(f *rolloutFlags) { f.scaleDown = "rackroll/Worker_A" }), []string{`"rackroll/Worker_A"`, "deployment"}},
		{"scale-down with a ramp", with(func(f *rolloutFlags) { f.scaleDown, f.ramp, f.rampSet = "rackroll/w-a", 10, true }), []string{"--scale-down rackroll/w-a with --ramp 10", "drains no build"}},
		{"every problem at once", with(func(f *rolloutFlags) { f.build, f.wait, f.ramp, f.rampSet = "", 0, 0, true }), []string{"--build is required", "--wait 0s", "--ramp 0"}},
	} {
		err := tc.f.check(false)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error lacks %q:\n%v", tc.name, w, err)
			}
		}
	}
}

// A deployment with A current, B polling, C an older build.
var abc = deploymentView{Name: "rackroll", Current: "A",
	Versions: []versionView{{Build: "B"}, {Build: "A"}, {Build: "C", Drainage: "drained"}}}

func TestPlanRolloutMakesTheBuildCurrentAndDrainsTheOneBefore(t *testing.T) {
	require.Equal(t, change{Build: "B", Drains: "A"}, planRollout(abc, "B", 0, nil))
	require.Equal(t, change{Build: "B", Ramp: 10}, planRollout(abc, "B", 10, nil), "a ramp drains nothing")
	unversioned := abc
	unversioned.Current = ""
	require.Equal(t, change{Build: "B"}, planRollout(unversioned, "B", 0, nil), "from unversioned workers nothing drains")

	// Run again for the current build: nothing routed, the runs and the
	// build current before awaited again.
	now := time.Now()
	require.Equal(t, change{Build: "A", Already: true, Drains: "C"}, planRollout(abc, "A", 0, map[string]time.Time{"A": now, "C": now.Add(-time.Hour)}))
	require.Equal(t, change{Build: "A", Already: true}, planRollout(abc, "A", 0, nil), "no build before it on record")
	require.Contains(t, planRollout(abc, "A", 20, nil).Nothing, "already current")
	ramping := abc
	ramping.Ramping, ramping.RampPercent = "B", 10
	require.Contains(t, planRollout(ramping, "B", 10, nil).Nothing, "already ramps at 10 %")
	require.Equal(t, change{Build: "B", Ramp: 50}, planRollout(ramping, "B", 50, nil), "another share")
	require.Equal(t, change{Build: "B", Drains: "A"}, planRollout(ramping, "B", 0, nil), "a ramping build made current")
}

func TestPlanRollbackGoesToTheBuildCurrentBefore(t *testing.T) {
	now := time.Now()
	onB := abc
	onB.Current = "B"
	last := map[string]time.Time{"A": now.Add(-time.Hour), "C": now.Add(-48 * time.Hour), "B": now}
	ch, err := planRollback(onB, "", last)
	require.NoError(t, err)
	require.Equal(t, change{Build: "A", Drains: "B"}, ch, "A was current last before B")

	ch, err = planRollback(onB, "C", last)
	require.NoError(t, err)
	require.Equal(t, change{Build: "C", Drains: "B"}, ch, "--build wins")

	ch, err = planRollback(onB, "B", last)
	require.NoError(t, err)
	require.Contains(t, ch.Nothing, "already current")

	_, err = planRollback(onB, "", map[string]time.Time{"B": now})
	require.ErrorContains(t, err, "--build is required: deployment rackroll has no earlier current build on record (versions: B, A, C)")

	ramping := abc
	ramping.Ramping, ramping.RampPercent = "B", 10
	ch, err = planRollback(ramping, "", last)
	require.NoError(t, err)
	require.Equal(t, change{Build: "A", StopRamp: true, Drains: "B"}, ch, "while B ramps, rollback removes the ramp")
	ch, err = planRollback(ramping, "A", last)
	require.NoError(t, err)
	require.True(t, ch.StopRamp)
	ramping.Current = ""
	_, err = planRollback(ramping, "", last)
	require.ErrorContains(t, err, "from unversioned workers")
}

func TestRoutingOfEachVersion(t *testing.T) {
	v := abc
	v.Ramping, v.RampPercent = "B", 25
	for build, want := range map[string]string{"A": "current", "B": "ramping 25%", "C": "drained", "D": "inactive"} {
		require.Equal(t, want, v.routing(build), build)
	}
}

func TestPendingRunsAreTheRunningOnesOnAnotherBuild(t *testing.T) {
	rows := []runBuild{
		{ID: "upgrade:c", State: "none"},
		{ID: "cluster:c", State: "running", Build: "rackroll:B"},
		{ID: "monitor:c", State: "running", Build: "rackroll:A"},
		{ID: "keyset-nodes:c", State: "running", Build: "unversioned"},
		{ID: "keyset:c:ops", State: "completed", Build: "rackroll:A"},
	}
	left := pending(rows, "rackroll:B")
	require.Equal(t, "monitor:c (rackroll:A), keyset-nodes:c (unversioned)", pendingList(left))
	require.Empty(t, pending(rows[:2], "rackroll:B"), "done: the one running run is on B")
}

func TestProgressLinesSayWhatChanged(t *testing.T) {
	seen := map[string]string{}
	at := func(ledger, monitor string) []runBuild {
		return []runBuild{{ID: "cluster:c", State: "running", Build: ledger}, {ID: "monitor:c", State: monitor, Build: "rackroll:A"}}
	}
	require.Empty(t, progressLines(seen, at("rackroll:A", "running"), true), "the first look is the table")
	require.Empty(t, progressLines(seen, at("rackroll:A", "running"), false), "nothing changed")
	require.Equal(t, []string{"cluster:c: rackroll:A -> rackroll:B"}, progressLines(seen, at("rackroll:B", "running"), false))
	require.Equal(t, []string{"monitor:c: rackroll:A -> completed"}, progressLines(seen, at("rackroll:B", "completed"), false))
	more := append(at("rackroll:B", "completed"), runBuild{ID: "cluster:d", State: "running", Build: "rackroll:A"})
	require.Equal(t, []string{"cluster:d: running on rackroll:A"}, progressLines(seen, more, false), "a cluster registered meanwhile")
}

func TestNextMoveLineOnceAWord(t *testing.T) {
	said := map[string]string{}
	st := map[string]any{"phase": "Updating", "nextMove": "at the end of rack rack2"}
	require.Equal(t, "upgrade:c: next move: at the end of rack rack2", nextMoveLine("upgrade:c", st, said))
	require.Empty(t, nextMoveLine("upgrade:c", st, said), "said once")
	require.Empty(t, nextMoveLine("upgrade:c", map[string]any{"phase": "Updating"}, said), "a build without the field says nothing")
	st["nextMove"] = "at its pause"
	require.Equal(t, "upgrade:c: next move: at its pause", nextMoveLine("upgrade:c", st, said))
}

func TestWakeDelaySoonThenEveryThirtySeconds(t *testing.T) {
	var got []time.Duration
	for n := range 7 {
		got = append(got, wakeDelay(n))
	}
	require.Equal(t, []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second}, got)
	require.Equal(t, 30*time.Second, wakeDelay(1000))
}

func TestClustersFromLedgerIDs(t *testing.T) {
	require.Equal(t, "lab-two", clusterOf("cluster:lab-two"))
	require.Empty(t, clusterOf("monitor:lab-two"))
	known := addClusters(nil, "b", "a", "")
	require.Equal(t, []string{"a", "b"}, known)
	require.Equal(t, []string{"a", "b", "c"}, addClusters(known, "c", "a"), "a cluster seen once stays")
}
