package main

import (
	"fmt"
	"strings"
)

// The part of docs/performance.md that make test-profile writes.
const (
	docBegin = "<!-- test-profile: written by make test-profile, do not edit -->"
	docEnd   = "<!-- /test-profile -->"
)

// markdown is the profile as docs/performance.md shows it.
func (p SuiteProfile) markdown() string {
	var b strings.Builder
	verdict := "met"
	switch {
	case !p.Passed:
		verdict = "make test FAILED"
	case p.WallMinutes > suiteGoal.Minutes():
		verdict = "missed"
	}
	m := p.Machine
	fmt.Fprintf(&b, "`make test` took **%.1f min** (goal ≤ %.0f min: %s) on %s, commit %s — %d CPU %s, %s, %s.\n",
		p.WallMinutes, suiteGoal.Minutes(), verdict, p.Date[:10], p.Commit, m.NProc, m.CPUModel, m.MemTotal, m.GoVersion)
	fmt.Fprintf(&b, "%d packages, %d top-level tests and %d benchmarks (smoke-run at their smallest size) ran; %d skipped",
		p.Packages, p.Tests, p.Benchmarks, len(p.Skipped))
	if len(p.Skipped) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(p.Skipped, ", "))
	}
	b.WriteString(".\n\n")
	table := func(title string, ts []Timing) {
		fmt.Fprintf(&b, "| %s | seconds |\n|---|---:|\n", title)
		for _, t := range ts {
			fmt.Fprintf(&b, "| `%s` | %.1f |\n", t.Name, t.Seconds)
		}
		b.WriteString("\n")
	}
	table(fmt.Sprintf("slowest %d packages (each test binary's own Elapsed)", len(p.SlowestPkgs)), p.SlowestPkgs)
	table(fmt.Sprintf("slowest %d tests", len(p.SlowestTest)), p.SlowestTest)
	return b.String()
}

// writeDoc replaces the profile between the markers of path, or appends
// a section holding it.
func writeDoc(path string, p SuiteProfile) error {
	return writeBlock(path, docBegin, docEnd, "The suite's profile", p.markdown())
}
