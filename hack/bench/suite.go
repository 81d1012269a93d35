package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The suite's goal (issue 32): make test, warm, on this two-core machine.
const (
	suiteName = "suite: make test wall time, warm"
	suiteGoal = 12 * time.Minute
	slowest   = 15 // packages and tests listed
)

// SuiteProfile is what `bench suite` (make test-profile) measured: make
// test's wall time and where it went, from go test -json's own Elapsed
// figures. It keeps its own date and commit: make bench carries it over.
type SuiteProfile struct {
	Date        string   `json:"date"`
	Commit      string   `json:"commit"`
	Machine     Machine  `json:"machine"`
	Passed      bool     `json:"passed"`
	WallMinutes float64  `json:"wallMinutes"` // the whole make test: tools check, vet, go test
	Packages    int      `json:"packages"`
	Tests       int      `json:"tests"`             // top-level tests that ran
	Benchmarks  int      `json:"benchmarks"`        // top-level benchmarks smoke-run
	Skipped     []string `json:"skipped,omitempty"` // top-level tests that skipped: should be none
	Failed      []string `json:"failed,omitempty"`
	SlowestPkgs []Timing `json:"slowestPackages"`
	SlowestTest []Timing `json:"slowestTests"`
}

// Timing is one package's or test's Elapsed.
type Timing struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// testEvent is one line of go test -json (cmd/test2json).
type testEvent struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// profileSuite runs make test with TEST_JSON set, times it, and writes the
// profile into out and docs/performance.md (the streams themselves into
// .data/test-profile*.json). It returns the exit code.
func profileSuite(out string) int {
	f, err := os.CreateTemp("", "rackroll-test-*.json")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	f.Close()
	p := SuiteProfile{Date: time.Now().UTC().Format(time.RFC3339), Commit: commit(), Machine: machine()}
	fmt.Fprintf(os.Stderr, ">> make test TEST_JSON=%s (commit %s)\n", f.Name(), p.Commit)
	start := time.Now()
	cmd := exec.Command("make", "--no-print-directory", "test", "TEST_JSON="+f.Name())
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	runErr := cmd.Run()
	p.WallMinutes = round2(time.Since(start).Minutes())
	p.Passed = runErr == nil
	// The tests' stream, then the benchmarks' (make test writes file.bench);
	// both are kept in .data/ for a closer look.
	var streams []io.Reader
	for _, name := range []string{f.Name(), f.Name() + ".bench"} {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		os.Remove(name)
		streams = append(streams, bytes.NewReader(data))
		keep := filepath.Join(".data", "test-profile"+strings.TrimPrefix(name, f.Name())+".json")
		if os.MkdirAll(".data", 0o755) == nil {
			os.WriteFile(keep, data, 0o644)
		}
	}
	p.read(io.MultiReader(streams...), os.Stderr)

	res := readPrev(out)
	if res == nil {
		res = &Results{Date: p.Date, Machine: p.Machine, Metrics: map[string]map[string]float64{}, Sources: map[string]string{}}
	}
	res.Suite = &p
	res.Figures = withFigure(res.Figures, suiteFigure(&p))
	if err := write(out, *res); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := writeDoc("docs/performance.md", p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Print(p.markdown())
	fmt.Printf("\nwritten %s and docs/performance.md\n", out)
	if !p.Passed {
		fmt.Fprintf(os.Stderr, ">> make test failed: %v\n", runErr)
		return 1
	}
	return 0
}

// read takes the profile's counts and timings from go test -json's events,
// echoing the output of every test that failed to log.
func (p *SuiteProfile) read(r io.Reader, log io.Writer) {
	var pkgs, tests []Timing
	output := map[string][]string{} // package/test → its output lines
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e testEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		key := e.Package + " " + e.Test
		switch {
		case e.Action == "output" && e.Test != "":
			output[key] = append(output[key], e.Output)
		case e.Test == "" && (e.Action == "pass" || e.Action == "fail"):
			pkgs = append(pkgs, Timing{e.Package, e.Elapsed})
			p.Packages++
		case e.Test == "" || strings.Contains(e.Test, "/"):
			// a package with no tests ("skip"), or a subtest: counted in its parent
		case strings.HasPrefix(e.Test, "Benchmark"):
			// go test -json reports a benchmark's run, not its pass
			if e.Action == "run" {
				p.Benchmarks++
			}
		case e.Action == "pass" || e.Action == "fail":
			tests = append(tests, Timing{key, e.Elapsed})
			p.Tests++
			if e.Action == "fail" {
				p.Failed = append(p.Failed, key)
				fmt.Fprintf(log, "---- %s\n%s", key, strings.Join(output[key], ""))
			}
		case e.Action == "skip":
			p.Skipped = append(p.Skipped, key)
		}
	}
	p.SlowestPkgs, p.SlowestTest = top(pkgs), top(tests)
}

func top(ts []Timing) []Timing {
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Seconds > ts[j].Seconds })
	if len(ts) > slowest {
		ts = ts[:slowest]
	}
	return ts
}

// suiteFigure is the table's row for the suite: measured by make
// test-profile, or "not measured" (which does not fail make bench).
func suiteFigure(p *SuiteProfile) Figure {
	f := Figure{Name: suiteName, Goal: fmt.Sprintf("≤ %.0f min", suiteGoal.Minutes()), Unit: "min",
		Source: "not measured: make test-profile"}
	if p == nil {
		return f
	}
	setValue(&f, p.WallMinutes, p.Passed && p.WallMinutes <= suiteGoal.Minutes())
	f.Source = fmt.Sprintf("test-profile %s %s", p.Date[:10], p.Commit)
	if !p.Passed {
		f.Note = "make test failed in that run"
	}
	return f
}

// withFigure replaces the figure of the same name, or appends it.
func withFigure(fs []Figure, f Figure) []Figure {
	for i := range fs {
		if fs[i].Name == f.Name {
			fs[i] = f
			return fs
		}
	}
	return append(fs, f)
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
