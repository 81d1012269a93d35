package main

import "testing"

// A group left out keeps its figures with the date and commit of the run
// that measured them; figures already carried keep their first source.
func TestCarryNamesTheRun(t *testing.T) {
	prev := &Results{Date: "2026-11-30T02:19:53Z", Commit: "21e5cadbd8ad",
		Metrics: map[string]map[string]float64{"BenchmarkFleet": {"ratio": 1.001}, "BenchmarkHistoryBounds": {"x": 1}},
		Sources: map[string]string{"BenchmarkFleet": "run", "BenchmarkHistoryBounds": "prev 2026-11-29"}}
	res := &Results{Metrics: map[string]map[string]float64{}, Sources: map[string]string{}}
	for _, g := range groups {
		carry(prev, res, g)
	}
	if got := res.Sources["BenchmarkFleet"]; got != "prev 2026-11-30 21e5cadbd8ad" {
		t.Errorf("fleet source = %q", got)
	}
	if got := res.Sources["BenchmarkHistoryBounds"]; got != "prev 2026-11-29" {
		t.Errorf("history source = %q", got)
	}
	if res.Metrics["BenchmarkFleet"]["ratio"] != 1.001 {
		t.Errorf("fleet figures not carried: %v", res.Metrics["BenchmarkFleet"])
	}
}

// An older results.json has no commit: the source is the date alone.
func TestCarryWithoutCommit(t *testing.T) {
	prev := &Results{Date: "2026-11-28T10:00:00Z",
		Metrics: map[string]map[string]float64{"BenchmarkFleet": {"ratio": 1}}, Sources: map[string]string{"BenchmarkFleet": "run"}}
	res := &Results{Metrics: map[string]map[string]float64{}, Sources: map[string]string{}}
	for _, g := range groups {
		carry(prev, res, g)
	}
	if got := res.Sources["BenchmarkFleet"]; got != "prev 2026-11-28" {
		t.Errorf("source = %q", got)
	}
}
