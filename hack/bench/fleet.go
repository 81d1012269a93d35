package main

import (
	"fmt"
	"sort"
	"strings"
)

// addFunc adds one figure: name, goal, benchmark, its metric's unit, the
// unit shown, and whether a value meets the goal (nil: no goal).
type addFunc func(name, goal, bench, unit, outUnit string, met func(float64) bool)

// fleetFigures are the fleet benchmark's rows (test/bench/fleet_test.go):
// the rollout's ratio to its critical path, actions, the workers', the
// server's and the database's cost per 1,000 servers, and per workflow
// type the largest history and payload.
func fleetFigures(res Results, add addFunc) {
	const fb = "BenchmarkFleet"
	le := func(g float64) func(float64) bool { return func(v float64) bool { return v <= g } }
	m := res.Metrics[fb]
	size := "fleet"
	if m["sites"] > 0 {
		size = fmt.Sprintf("fleet of %.0f sites × %.0f servers", m["sites"], m["servers"]/m["sites"])
	}
	add(size+": wall / critical path", "≤ 1.05", fb, "ratio", "", le(1.05))
	add("  fleet: wall", "—", fb, "s-wall", "s", nil)
	add("  fleet: critical path (slowest site of each wave, + bake)", "—", fb, "s-critical", "s", nil)
	add("  fleet: servers upgraded per second", "—", fb, "servers/s", "/s", nil)
	add("fleet: Temporal actions per upgraded server", "—", fb, "actions/server", "", nil)
	add("  fleet: actions per second", "—", fb, "actions/s", "/s", nil)
	add("fleet: workflow tasks the workers failed to process", "—", fb, "wft-failed", "", nil)
	add("  fleet: workflow tasks over five seconds", "—", fb, "wft-slow", "", nil)
	add("fleet: central worker CPU per 1,000 servers", "—", fb, "cpu-s-central/1k-servers", "CPU-s", nil)
	add("fleet: site workers' CPU per 1,000 servers", "—", fb, "cpu-s-sites/1k-servers", "CPU-s", nil)
	add("fleet: central worker peak RSS (VmHWM)", "—", fb, "MiB-rss-central", "MiB", nil)
	add("  fleet: central worker peak RSS per 1,000 servers", "—", fb, "MiB-rss-central/1k-servers", "MiB", nil)
	add("  fleet: a site worker's peak RSS (largest)", "—", fb, "MiB-rss-site-max", "MiB", nil)
	add("fleet: Temporal services' CPU per 1,000 servers", "—", fb, "cpu-s-temporal/1k-servers", "CPU-s", nil)
	add("fleet: PostgreSQL CPU per 1,000 servers", "—", fb, "cpu-s-postgres/1k-servers", "CPU-s", nil)
	add("fleet: database size per 1,000 servers", "—", fb, "MiB-db/1k-servers", "MiB", nil)
	var types []string
	for unit := range m {
		if t, ok := strings.CutPrefix(unit, "events-max-"); ok {
			types = append(types, t)
		}
	}
	sort.Strings(types)
	if len(types) == 0 {
		add("fleet: largest history", "≤ 12,500 events", fb, "events-max-RuntimeUpgradeWorkflow", "events", nil)
	}
	for _, t := range types {
		add("fleet: "+t+" largest history", "≤ 12,500 events", fb, "events-max-"+t, "events", le(12500))
		add("  fleet: "+t+" largest history bytes", "—", fb, "KiB-max-"+t, "KiB", nil)
		add("  fleet: "+t+" largest payload", "≤ 512 KiB", fb, "KiB-payload-"+t, "KiB", le(512))
	}
	add("  fleet bench: whole run", "—", fb, "s-bench", "s", nil)
	extrapolated(res, add)
}

// extrapolated adds the fleet's figures carried linearly to 100 sites of
// 1,024 servers (issue 52), from the run's per-server costs: waves run one
// after another, each the same load. What it leaves out: the fleet's own
// watch costs per site and per second, not per server, and a run of
// smaller sites is a lower bound (a site's ledger reads and its
// continue-as-new input grow with it) — the first row names the measured
// size. The first limit reached is the process kind with the largest
// share of the CPU. Computed from the run's figures at every write; their
// source says "extrapolated from" the run's.
func extrapolated(res Results, add addFunc) {
	const fb, servers = "BenchmarkFleet", 100 * 1024.0
	m := res.Metrics[fb]
	for _, need := range []string{"servers", "sites", "actions/server", "cpu-s-temporal/1k-servers", "cpu-s-postgres/1k-servers",
		"cpu-s-central/1k-servers", "cpu-s-sites/1k-servers", "MiB-db/1k-servers"} {
		if m[need] == 0 {
			return // the small run on the dev server: no server's CPU, no database
		}
	}
	ex := fb + "/100-sites"
	k := servers / 1000 // thousands of servers
	cpu := map[string]float64{
		"the server (Temporal and PostgreSQL)": (m["cpu-s-temporal/1k-servers"] + m["cpu-s-postgres/1k-servers"]) * k / 3600,
		"the central worker":                   m["cpu-s-central/1k-servers"] * k / 3600,
		"the site workers":                     m["cpu-s-sites/1k-servers"] * k / 3600,
	}
	first, total := "", 0.0
	for name, v := range cpu {
		total += v
		if first == "" || v > cpu[first] || (v == cpu[first] && name < first) {
			first = name
		}
	}
	res.Metrics[ex] = map[string]float64{
		"M-actions": m["actions/server"] * servers / 1e6, "CPU-h-server": cpu["the server (Temporal and PostgreSQL)"],
		"CPU-h-central": cpu["the central worker"], "CPU-h-sites": cpu["the site workers"],
		"GiB-db": m["MiB-db/1k-servers"] * k / 1024, "h-here": total / float64(max(res.Machine.NProc, 1)),
		"%-first": 100 * cpu[first] / total,
	}
	res.Sources[ex] = "extrapolated from " + res.Sources[fb]
	from := fmt.Sprintf("%.0f × %.0f", m["sites"], m["servers"]/m["sites"])
	if m["servers"]/m["sites"] < 1024 {
		from += ", a lower bound"
	}
	add("fleet extrapolated to 100 sites × 1,024 servers (from "+from+"): Temporal actions", "—", ex, "M-actions", "M", nil)
	add("  fleet extrapolated: Temporal and PostgreSQL CPU", "—", ex, "CPU-h-server", "CPU-h", nil)
	add("  fleet extrapolated: central worker CPU", "—", ex, "CPU-h-central", "CPU-h", nil)
	add("  fleet extrapolated: site workers' CPU", "—", ex, "CPU-h-sites", "CPU-h", nil)
	add("  fleet extrapolated: database for the retention period", "—", ex, "GiB-db", "GiB", nil)
	add("  fleet extrapolated: hours on the measuring machine's cores, at least", "—", ex, "h-here", "h", nil)
	add("  fleet extrapolated: first limit reached, "+first+", its share of the CPU", "—", ex, "%-first", "%", nil)
}
