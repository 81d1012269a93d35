package main

import (
	"math"
	"strings"
	"testing"
)

// The extrapolation to 100 sites of 1,024 servers scales the run's
// per-server figures, names the size it came from (a lower bound when the
// sites were smaller), and is left out when the run measured no server.
func TestFleetExtrapolated(t *testing.T) {
	res := Results{Machine: Machine{NProc: 2}, Sources: map[string]string{"BenchmarkFleet": "run"},
		Metrics: map[string]map[string]float64{"BenchmarkFleet": {"servers": 2560, "sites": 10, "actions/server": 42.3,
			"cpu-s-temporal/1k-servers": 753.3, "cpu-s-postgres/1k-servers": 278.3, "cpu-s-central/1k-servers": 259.1,
			"cpu-s-sites/1k-servers": 34.11, "MiB-db/1k-servers": 89.79}}}
	rows := map[string]Figure{}
	var names []string
	add := func(name, goal, bench, unit, outUnit string, met func(float64) bool) {
		f := Figure{Name: name, Source: res.Sources[bench]}
		if v, ok := res.Metrics[bench][unit]; ok {
			f.Value = &v
		}
		rows[unit], names = f, append(names, name)
	}
	extrapolated(res, add)
	near := func(unit string, want float64) {
		t.Helper()
		if f, ok := rows[unit]; !ok || f.Value == nil || math.Abs(*f.Value-want) > 0.01 {
			t.Errorf("%s: %+v, want %.3f", unit, f, want)
		}
	}
	near("M-actions", 4.332)
	near("CPU-h-server", 29.34)
	near("CPU-h-central", 7.370)
	near("GiB-db", 8.979)
	near("h-here", 18.84)
	near("%-first", 77.87)
	if !strings.Contains(names[0], "from 10 × 256, a lower bound") || !strings.Contains(names[len(names)-1], "the server (Temporal and PostgreSQL)") {
		t.Errorf("rows: %q", names)
	}
	if src := rows["M-actions"].Source; src != "extrapolated from run" {
		t.Errorf("source %q", src)
	}
	small := Results{Metrics: map[string]map[string]float64{"BenchmarkFleet": {"servers": 16, "sites": 2, "actions/server": 40}}, Sources: map[string]string{}}
	n := 0
	extrapolated(small, func(string, string, string, string, string, func(float64) bool) { n++ })
	if n != 0 {
		t.Errorf("the small run on the dev server was extrapolated: %d rows", n)
	}
}
