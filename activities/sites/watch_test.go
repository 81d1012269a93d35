package sites

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/fleet"
)

// A settled site (succeeded, or at the target already) is read every
// SettledEvery, any other every read; each is read the first time.
func TestDueReadsSettledSitesLessOften(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	every := time.Second
	for _, c := range []struct {
		verdict string
		last    time.Time
		now     time.Time
		want    bool
	}{
		{fleet.Succeeded, time.Time{}, t0, true},
		{fleet.Succeeded, t0, t0.Add(every), false},
		{fleet.Succeeded, t0, t0.Add(SettledEvery - time.Millisecond), false},
		{fleet.Succeeded, t0, t0.Add(SettledEvery), true},
		{fleet.Current, t0, t0.Add(10 * time.Second), false},
		{fleet.Running, t0, t0.Add(every), true},
		{fleet.Waiting, t0, t0.Add(every), true},
		{fleet.Storm, t0, t0.Add(every), true},
		{fleet.Unreachable, t0, t0.Add(every), true},
	} {
		if got := due(fleet.Reading{Verdict: c.verdict}, c.last, c.now, every); got != c.want {
			t.Errorf("due(%s, read %v before): %v, want %v", c.verdict, c.now.Sub(c.last), got, c.want)
		}
	}
	// A watch slower than SettledEvery reads every site at its own pace.
	if !due(fleet.Reading{Verdict: fleet.Succeeded}, t0, t0.Add(time.Minute), time.Minute) {
		t.Error("a settled site is not read at a one-minute watch's pace")
	}
}

// The last read kept a site's reading when its time was older than the
// read's: the watch reads every site again before it returns.
func TestStaleWhenAReadingWasKept(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	in := WatchInput{Sites: []Followed{{Cluster: "a"}, {Cluster: "b"}}}
	if stale(in, map[string]time.Time{"a": t0, "b": t0}) {
		t.Error("both read in the last read: stale")
	}
	if !stale(in, map[string]time.Time{"a": t0.Add(time.Second), "b": t0}) {
		t.Error("b kept from an earlier read: not stale")
	}
}
