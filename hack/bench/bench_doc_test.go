package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// make bench's table lands between its own markers and leaves the suite's
// block and the prose alone.
func TestBenchTableReplacesOnlyItsBlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "performance.md")
	prose := "# Performance\n\nprose\n\n" + docBegin + "\nsuite\n" + docEnd + "\n"
	if err := os.WriteFile(path, []byte(prose), 0o644); err != nil {
		t.Fatal(err)
	}
	ratio, met := 1.042, true
	res := Results{Date: "2026-11-27T07:00:00Z", Commit: "abc", Machine: Machine{NProc: 2},
		Figures: []Figure{{Name: "critical-path ratio, four-rack", Goal: "≤ 1.05", Value: &ratio, Met: &met, Source: "run"},
			{Name: "  critical path, four-rack", Goal: "—", Source: "not run"}}}
	for i := 0; i < 2; i++ { // the second write replaces the first
		if err := writeBlock(path, benchBegin, benchEnd, "Latest figures", res.markdown()); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	doc := string(b)
	if strings.Count(doc, benchBegin) != 1 || !strings.Contains(doc, "prose") || !strings.Contains(doc, "\nsuite\n") {
		t.Fatalf("doc:\n%s", doc)
	}
	for _, want := range []string{"commit abc", "| critical-path ratio, four-rack | ≤ 1.05 | 1.042 | yes | run |",
		"| &nbsp;&nbsp;critical path, four-rack | — | — |  | not run |"} {
		if !strings.Contains(doc, want) {
			t.Errorf("doc lacks %q:\n%s", want, doc)
		}
	}
}
