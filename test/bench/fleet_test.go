package bench_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/temporalcluster"
)

// fleetSize is the fleet: sites × (racks × (mgmt + computes)) BMMs.
type fleetSize struct{ sites, racks, mgmt, computes int }

// The fleet: 10 sites of 1,024 BMMs, each 32 racks of 2
// management and 30 compute servers (the other benchmarks' two management
// servers a rack: 3 KCPs, a spare and 60 management servers in groups a
// and b, 960 computes). RACKROLL_FLEET_SITES and RACKROLL_FLEET_RACKS
// change it for a trial. Small (make test): 2 sites of 2 racks × (2 + 2).
func fleetSizeFromEnv(b *testing.B) fleetSize {
	s := fleetSize{sites: lab.BenchSize(10, 2), racks: lab.BenchSize(32, 2), mgmt: 2, computes: lab.BenchSize(30, 2)}
	for env, v := range map[string]*int{"RACKROLL_FLEET_SITES": &s.sites, "RACKROLL_FLEET_RACKS": &s.racks} {
		if e := os.Getenv(env); e != "" {
			n, err := strconv.Atoi(e)
			if err != nil || n < 1 {
				b.Fatalf("%s=%q: want a positive count", env, e)
			}
			*v = n
		}
	}
	return s
}

// fleetTimings are the instant hardware's: the critical-path benchmark's
// lab timings (reimage 2 s, boot 0.5 s, power 0.2 s, drain 0.2 s), a
// tenth of them in the small run.
func fleetTimings() instantTimings {
	t := instantTimings{Reimage: 2 * time.Second, Boot: 500 * time.Millisecond, Power: 200 * time.Millisecond, Drain: 200 * time.Millisecond}
	if lab.SmallBench() {
		t = instantTimings{Reimage: t.Reimage / 10, Boot: t.Boot / 10, Power: t.Power / 10, Drain: t.Drain / 10}
	}
	return t
}

// BenchmarkFleet rolls a runtime release over a fleet of sites on one
// Temporal (issue 52): 10 sites × 1,024 BMMs on the production-shaped
// Temporal (PostgreSQL, a process per service; internal/temporalcluster),
// a central worker process (workflows and ledger activities on the
// central queue) and a site worker process per site (the instant hardware
// at compressed timings on the site's own queue), a canary site then waves
// of three. It reports the fleet's wall time over its critical path (goal
// ≤ 1.05), Temporal actions per upgraded server, the workers' (and
// Temporal's and PostgreSQL's) CPU-seconds and peak RSS per 1,000
// servers, per workflow type the largest history and payload (goals ≤
// 12,500 events, ≤ 512 KiB), and the databases' size per 1,000 servers.
// Small (make test): 2 sites of 8 BMMs on the dev server.
func BenchmarkFleet(b *testing.B) {
	if testing.Short() {
		b.Skip("runs a fleet of sites")
	}
	size := fleetSizeFromEnv(b)
	production := !lab.SmallBench()
	for i := 0; i < b.N; i++ {
		began := time.Now()
		ctx := context.Background()
		ft := startFleetTemporal(b, production)
		dir := b.TempDir()
		timings := fleetTimings()
		central := startFleetWorker(b, dir, ft.address, "central", timings)
		// Site workers first, as at a site: each runs before its site is
		// registered, and polls before the rollout starts.
		siteWorkers := map[string]*temporalcluster.Process{}
		for _, s := range size.names() {
			siteWorkers[s] = startFleetWorker(b, dir, ft.address, "site:"+s, timings)
		}
		sites, servers := registerSites(b, ft.client, size)
		waitPollers(b, ft.client, sites)
		fmt.Fprintf(os.Stderr, "fleet: %d sites × %d BMMs (%d racks × (%d management + %d compute)), timings %v; set up in %v\n",
			len(sites), servers/len(sites), size.racks, size.mgmt, size.computes, timings, time.Since(began).Round(time.Second))
		before := fleetUsage(ft, central, siteWorkers)

		roll := rollOut
		if os.Getenv("RACKROLL_FLEET_BY_HAND") == "1" { // to compare: the waves started by the benchmark itself
			roll = rollOutByHand
		}
		start := time.Now()
		if err := roll(ctx, ft.client, sites); err != nil {
			b.Fatal(err)
		}
		wall := time.Since(start)
		after := fleetUsage(ft, central, siteWorkers)
		critical, each, err := criticalPath(ctx, ft.client, sites)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range sites {
			fmt.Fprintf(os.Stderr, "fleet: %s upgraded in %v\n", s, each[s].Round(100*time.Millisecond))
		}
		fmt.Fprintf(os.Stderr, "fleet: rollout %v, critical path %v\n", wall.Round(100*time.Millisecond), critical.Round(100*time.Millisecond))

		failed, slow := taskTrouble(b, dir)
		fmt.Fprintf(os.Stderr, "fleet: workflow tasks the workers failed to process %d, over five seconds %d\n", failed, slow)

		read := time.Now()
		h := readFleetHistories(b, ft.client, temporalcluster.Namespace, 4)
		fmt.Fprintf(os.Stderr, "fleet: histories read in %v; actions %s\n", time.Since(read).Round(time.Second), describeActions(h.actions))

		per1k := func(v float64) float64 { return v * 1000 / float64(servers) }
		b.ReportMetric(float64(len(sites)), "sites")
		b.ReportMetric(float64(servers), "servers")
		b.ReportMetric(wall.Seconds(), "s-wall")
		b.ReportMetric(critical.Seconds(), "s-critical")
		b.ReportMetric(wall.Seconds()/critical.Seconds(), "ratio")
		b.ReportMetric(float64(servers)/wall.Seconds(), "servers/s")
		b.ReportMetric(float64(h.totalActions())/float64(servers), "actions/server")
		b.ReportMetric(float64(h.totalActions())/wall.Seconds(), "actions/s")
		b.ReportMetric(float64(failed), "wft-failed")
		b.ReportMetric(float64(slow), "wft-slow")
		b.ReportMetric(per1k(after.central.cpu-before.central.cpu), "cpu-s-central/1k-servers")
		b.ReportMetric(per1k(after.sites.cpu-before.sites.cpu), "cpu-s-sites/1k-servers")
		b.ReportMetric(float64(after.central.hwmKiB)/1024, "MiB-rss-central")
		b.ReportMetric(per1k(float64(after.central.hwmKiB)/1024), "MiB-rss-central/1k-servers")
		b.ReportMetric(float64(after.siteMaxKiB)/1024, "MiB-rss-site-max")
		b.ReportMetric(per1k(float64(after.sites.hwmKiB)/1024), "MiB-rss-sites/1k-servers")
		if production {
			b.ReportMetric(per1k(after.temporal.cpu-before.temporal.cpu), "cpu-s-temporal/1k-servers")
			b.ReportMetric(per1k(after.postgres.cpu-before.postgres.cpu), "cpu-s-postgres/1k-servers")
			b.ReportMetric(float64(after.temporal.hwmKiB)/1024, "MiB-rss-temporal")
			mib := databaseMiB(b, ft.cluster)
			b.ReportMetric(mib, "MiB-db")
			b.ReportMetric(per1k(mib), "MiB-db/1k-servers")
		}
		types := make([]string, 0, len(h.sizes))
		for t := range h.sizes {
			types = append(types, t)
		}
		sort.Strings(types)
		for _, t := range types {
			s := h.sizes[t]
			b.ReportMetric(float64(s.events), "events-max-"+t)
			b.ReportMetric(float64(s.bytes)/1024, "KiB-max-"+t)
			b.ReportMetric(float64(s.payload)/1024, "KiB-payload-"+t)
			fmt.Fprintf(os.Stderr, "fleet: %-24s largest history %6d events %9d bytes; largest payload %8d bytes in %s (%d runs)\n",
				t, s.events, s.bytes, s.payload, s.where, s.runs)
		}
		b.ReportMetric(time.Since(began).Seconds(), "s-bench")
	}
}

// usage is the processes' /proc readings at one moment.
type usage struct {
	central, sites, temporal, postgres procUsage // sites: CPU and peak RSS summed
	siteMaxKiB                         int
}

func fleetUsage(ft *fleetTemporal, central *temporalcluster.Process, sites map[string]*temporalcluster.Process) usage {
	u := usage{central: readProc(central.Pid())}
	for _, p := range sites {
		r := readProc(p.Pid())
		u.sites.cpu += r.cpu
		u.sites.hwmKiB += r.hwmKiB
		u.siteMaxKiB = max(u.siteMaxKiB, r.hwmKiB)
	}
	if ft.cluster != nil {
		for _, pid := range ft.cluster.Pids() {
			r := readProc(pid)
			u.temporal.cpu += r.cpu
			u.temporal.hwmKiB += r.hwmKiB
		}
		u.postgres = readTree(ft.cluster.Postgres.Pid())
	}
	return u
}

// databaseMiB is the size of Temporal's two databases (pg_database_size).
func databaseMiB(b *testing.B, tc *temporalcluster.Cluster) float64 {
	rows, err := tc.Postgres.Query(context.Background(), temporalcluster.Database,
		fmt.Sprintf("SELECT pg_database_size('%s') + pg_database_size('%s')", temporalcluster.Database, temporalcluster.VisibilityDatabase))
	if err != nil || len(rows) != 1 {
		b.Fatalf("database size: %v %v", rows, err)
	}
	n, err := strconv.ParseFloat(rows[0], 64)
	if err != nil {
		b.Fatal(err)
	}
	return n / (1 << 20)
}
