// Command bench runs rackroll's benchmarks (`make bench`), prints one table
// — figure, goal, result, met? — and writes bench/results.json with the
// figures, the goals and the machine.
//
// It runs the Go benchmarks with `go test -bench` and parses their
// ReportMetric figures; it does not re-implement them. Environment:
//
//	BENCH_ONLY=lab,critical,history,storm,fleet  run only these groups; the others
//	                                       keep their figures from the previous
//	                                       bench/results.json (marked "prev")
//	RACKROLL_STORM_N=1000                  the remediation storm's size
//	                                       (default 200)
//	BENCH_OUT=path                         results file (default bench/results.json)
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// group is one `go test -bench` invocation.
type group struct {
	name, pkg, bench string
	about            string
	timeout          string // go test -timeout; default 90m
}

var groups = []group{
	{"lab", "./internal/lab/", "^BenchmarkLabUp", "lab start time and heap", ""},
	{"critical", "./test/bench/", "^BenchmarkUpgradeCriticalPath$", "critical-path ratio (four-rack, sixteen-rack)", ""},
	{"storm", "./test/bench/", "^BenchmarkRemediationStorm$", "remediation storm", ""},
	{"history", "./test/bench/", "^BenchmarkHistoryBounds$", "history bounds, 64 racks × 32 compute, 32 keysets (~45 min)", ""},
	{"fleet", "./test/bench/", "^BenchmarkFleet$", "fleet: 10 sites × 1,024 servers on PostgreSQL, a process per Temporal service (~45 min)", "240m"},
}

func main() {
	out := os.Getenv("BENCH_OUT")
	if out == "" {
		out = "bench/results.json"
	}
	only := map[string]bool{}
	for _, g := range strings.Split(os.Getenv("BENCH_ONLY"), ",") {
		if g = strings.TrimSpace(g); g != "" {
			only[g] = true
		}
	}
	if len(os.Args) > 1 && os.Args[1] == "suite" {
		os.Exit(profileSuite(out))
	}
	prev := readPrev(out)
	res := Results{Date: time.Now().UTC().Format(time.RFC3339), Commit: commit(), Machine: machine(),
		Metrics: map[string]map[string]float64{}, Sources: map[string]string{}}
	failed, ran := false, false
	for _, g := range groups {
		if len(only) > 0 && !only[g.name] {
			carry(prev, &res, g)
			continue
		}
		ran = true
		fmt.Fprintf(os.Stderr, ">> %s: go test -run '^$' -bench '%s' -benchtime 1x %s\n", g.about, g.bench, g.pkg)
		metrics, err := runBench(g)
		for k, v := range metrics {
			res.Metrics[k] = v
			res.Sources[k] = "run"
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, ">> %s failed: %v\n", g.name, err)
			failed = true
		}
	}
	if !ran && prev != nil {
		// Nothing ran (BENCH_ONLY=none: the table and the docs written
		// again from the figures): they keep the date and commit of the
		// runs that measured them.
		res.Date, res.Commit, res.Machine = prev.Date, prev.Commit, prev.Machine
	}
	// The suite's figure is make test-profile's, carried with its own date
	// and commit: make bench does not run the suite.
	if prev != nil {
		res.Suite = prev.Suite
	}
	res.Figures = append(figures(res), suiteFigure(res.Suite))
	for _, f := range res.Figures {
		if f.Source == "not run" { // a benchmark that stopped reporting is a failure, not a blank
			fmt.Fprintf(os.Stderr, ">> not run: %s\n", f.Name)
			failed = true
		}
	}
	printTable(os.Stdout, res)
	if err := write(out, res); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("\nwritten %s\n", out)
	if os.Getenv("BENCH_OUT") == "" {
		// The docs show the figures of bench/results.json, never another file's.
		if err := writeBlock("docs/performance.md", benchBegin, benchEnd, "Latest figures", res.markdown()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("written docs/performance.md")
	}
	if failed {
		os.Exit(1)
	}
}

// benchLine: "BenchmarkX/sub-2   1   123 ns/op   1.05 ratio ..."
var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+(\d+)\s+(.*)$`)

// runBench runs one group, echoing its output to stderr, and returns the
// metrics per benchmark.
func runBench(g group) (map[string]map[string]float64, error) {
	timeout := g.timeout
	if timeout == "" {
		timeout = "90m"
	}
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", g.bench, "-benchtime", "1x", "-timeout", timeout, g.pkg)
	var buf bytes.Buffer
	cmd.Stdout = io.MultiWriter(os.Stderr, &buf)
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	return parse(&buf), err
}

func parse(r io.Reader) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		f := strings.Fields(m[4])
		vals := map[string]float64{}
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			vals[f[i+1]] = v
		}
		out[m[1]] = vals
	}
	return out
}

// carry keeps a group's previous figures when it is not run this time.
func carry(prev *Results, res *Results, g group) {
	if prev == nil {
		return
	}
	for k, v := range prev.Metrics {
		if !groupOf(g, k) {
			continue
		}
		res.Metrics[k] = v
		src := prev.Sources[k]
		if src == "run" || src == "" {
			// The run that measured it: its date and, when known, commit.
			src = strings.TrimSpace("prev " + prev.Date[:10] + " " + prev.Commit)
		}
		res.Sources[k] = src
	}
}

func groupOf(g group, bench string) bool {
	return regexp.MustCompile(g.bench).MatchString(strings.SplitN(bench, "/", 2)[0])
}

func prevFigure(prev *Results, name string) *Figure {
	if prev == nil {
		return nil
	}
	for i := range prev.Figures {
		if prev.Figures[i].Name == name {
			return &prev.Figures[i]
		}
	}
	return nil
}

func setValue(f *Figure, v float64, met bool) {
	f.Value = &v
	if f.Goal != "" && f.Goal != "—" {
		f.Met = &met
	}
}

// figures turns the benchmarks' metrics into the table's rows.
func figures(res Results) []Figure {
	var out []Figure
	add := func(name, goal, bench, unit, outUnit string, met func(float64) bool) {
		f := Figure{Name: name, Goal: goal, Unit: outUnit, Source: "not run"}
		if m, ok := res.Metrics[bench]; ok {
			if v, ok := m[unit]; ok {
				f.Source = res.Sources[bench]
				ok := true
				if met != nil {
					ok = met(v)
				}
				setValue(&f, v, ok)
			}
		}
		out = append(out, f)
	}
	le := func(g float64) func(float64) bool { return func(v float64) bool { return v <= g } }
	lt := func(g float64) func(float64) bool { return func(v float64) bool { return v < g } }
	for _, site := range []string{"four-rack", "sixteen-rack"} {
		b := "BenchmarkUpgradeCriticalPath/" + site
		// Issue 52's goals: the ratio, and the overhead per serial step at
		// both sizes, which says whether it grows with the site.
		add("critical-path ratio, "+site, "≤ 1.03", b, "ratio", "", le(1.03))
		add("  wall / critical path, "+site, "—", b, "s-wall", "s", nil)
		add("  critical path, "+site, "—", b, "s-critical", "s", nil)
		add("  overhead per serial step, "+site, "≤ 250 ms", b, "ms-overhead/step", "ms", le(250))
		add("  guards' cost (image, capacity checks, canary step), "+site, "< 2 % of the critical path", b, "%-guards", "%", lt(2))
		add("  canary's servers (waited for by design), "+site, "—", b, "s-canary-wait", "s", nil)
		for _, part := range []struct{ unit, what string }{
			{"ms-in-racks/step", "inside rack workflows"},
			{"ms-parent/step", "in the parent"},
			{"ms-parent-ledger/step", "parent: ledger Updates"},
			{"ms-parent-child-start/step", "parent: child starts"},
			{"ms-parent-workflow-task/step", "parent: workflow tasks"},
			{"ms-parent-other/step", "parent: dispatch and gaps"},
		} {
			add("    of which "+part.what, "—", b, part.unit, "ms", nil)
		}
	}
	// History bounds: every workflow type the benchmark reported.
	hb := "BenchmarkHistoryBounds"
	var types []string
	for unit := range res.Metrics[hb] {
		if t, ok := strings.CutPrefix(unit, "events-max-"); ok {
			types = append(types, t)
		}
	}
	sort.Strings(types)
	if len(types) == 0 {
		add("history: largest history", "parent < 1,000; all ≤ 5,120 events", hb, "events-max-RuntimeUpgradeWorkflow", "events", nil)
	}
	for _, t := range types {
		if t == "RuntimeUpgradeWorkflow" {
			add("history: "+t+" (parent) events", "< 1,000", hb, "events-max-"+t, "events", lt(1000))
		} else {
			add("history: "+t+" events", "≤ 5,120", hb, "events-max-"+t, "events", le(5120))
		}
		add("  history: "+t+" bytes", "—", hb, "KiB-max-"+t, "KiB", nil)
		if t == "KeysetWorkflow" {
			add("  history: "+t+" largest payload", "≤ 256 KiB", hb, "KiB-payload-"+t, "KiB", le(256))
		} else {
			add("  history: "+t+" largest payload", "< 2,048 KiB (Temporal's limit)", hb, "KiB-payload-"+t, "KiB", lt(2048))
		}
	}
	add("  history bench: upgrade of 2,048 servers", "—", hb, "s-upgrade", "s", nil)
	st := "BenchmarkRemediationStorm"
	n := res.Metrics[st]["bmms-failed"]
	name := "storm: remediations terminal"
	if n > 0 {
		name += fmt.Sprintf(" (of %.0f failed)", n)
	}
	add(name, "all", st, "terminal", "", func(v float64) bool { return v == n })
	add("storm: peak remediations running", fmt.Sprintf("≤ cap %.0f", res.Metrics[st]["cap"]), st, "peak-running", "",
		le(res.Metrics[st]["cap"]))
	add("storm: throughput", "—", st, "remediations/s", "/s", nil)
	add("storm: worker process peak RSS (VmHWM)", "< 512 MiB", st, "MiB-peak-rss", "MiB", lt(512))
	fleetFigures(res, add)
	add("lab: four-rack start", "< 15 s", "BenchmarkLabUpFourRack", "s-ready", "s", lt(15))
	add("lab: 64-rack (1,024 BMMs) start", "—", "BenchmarkLabUp64Racks", "s-ready", "s", nil)
	add("lab: 64-rack heap", "—", "BenchmarkLabUp64Racks", "MiB-heap", "MiB", nil)
	return out
}

func printTable(w io.Writer, res Results) {
	m := res.Machine
	fmt.Fprintf(w, "rackroll benchmarks — %s — %d CPU (%s), %s, %s\n\n", res.Date, m.NProc, m.CPUModel, m.MemTotal, m.GoVersion)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tGOAL\tRESULT\tMET?\tSOURCE")
	for _, f := range res.Figures {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Name, f.Goal, f.result(), f.met("yes", "NO"), f.Source)
	}
	tw.Flush()
	if n := res.Metrics["BenchmarkRemediationStorm"]["bmms-failed"]; n > 0 && n < 1000 {
		fmt.Fprintf(w, "\nstorm size %.0f (RACKROLL_STORM_N=1000 for the issue's 1,000)\n", n)
	}
}

// result is the figure's value with its unit, "—" when not measured.
func (f Figure) result() string {
	if f.Value == nil {
		return "—"
	}
	val := strconv.FormatFloat(*f.Value, 'f', prec(*f.Value), 64)
	if f.Unit != "" {
		val += " " + f.Unit
	}
	return val
}

// met says yes or no when the figure has a goal, nothing otherwise.
func (f Figure) met(yes, no string) string {
	if f.Met == nil {
		return ""
	}
	return map[bool]string{true: yes, false: no}[*f.Met]
}

func prec(v float64) int {
	switch {
	case v == float64(int64(v)):
		return 0
	case v < 10:
		return 3
	default:
		return 1
	}
}
