package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A go test -json stream of two packages: one test passes, one fails
// (its output is echoed), a subtest is counted in its parent, a skipped
// test is listed (a package without tests is not) and a benchmark, which
// -json reports as run only, is counted apart.
const stream = `{"Action":"start","Package":"a"}
{"Action":"run","Package":"a","Test":"TestSlow"}
{"Action":"output","Package":"a","Test":"TestSlow/sub","Output":"sub ok\n"}
{"Action":"pass","Package":"a","Test":"TestSlow/sub","Elapsed":3}
{"Action":"pass","Package":"a","Test":"TestSlow","Elapsed":40.5}
{"Action":"output","Package":"a","Test":"TestBroken","Output":"boom\n"}
{"Action":"fail","Package":"a","Test":"TestBroken","Elapsed":1}
{"Action":"skip","Package":"a","Test":"TestSkipped","Elapsed":0}
{"Action":"run","Package":"a","Test":"BenchmarkX"}
{"Action":"output","Package":"a","Test":"BenchmarkX","Output":"BenchmarkX-2 1 7 ns/op\n"}
{"Action":"fail","Package":"a","Elapsed":50}
not json: a build error line
{"Action":"pass","Package":"b","Test":"TestQuick","Elapsed":0.2}
{"Action":"pass","Package":"b","Elapsed":0.3}
{"Action":"skip","Package":"c","Elapsed":0}
`

func TestReadProfile(t *testing.T) {
	var p SuiteProfile
	var log bytes.Buffer
	p.read(strings.NewReader(stream), &log)
	if p.Packages != 2 || p.Tests != 3 || p.Benchmarks != 1 {
		t.Errorf("packages %d tests %d benchmarks %d, want 2, 3, 1", p.Packages, p.Tests, p.Benchmarks)
	}
	if got := strings.Join(p.Skipped, ","); got != "a TestSkipped" {
		t.Errorf("skipped %q", got)
	}
	if got := strings.Join(p.Failed, ","); got != "a TestBroken" {
		t.Errorf("failed %q", got)
	}
	if !strings.Contains(log.String(), "boom") {
		t.Errorf("the failed test's output is not echoed: %q", log.String())
	}
	if p.SlowestPkgs[0] != (Timing{"a", 50}) || p.SlowestTest[0] != (Timing{"a TestSlow", 40.5}) {
		t.Errorf("slowest: %+v %+v", p.SlowestPkgs, p.SlowestTest)
	}
}

func TestSuiteFigure(t *testing.T) {
	if f := suiteFigure(nil); f.Value != nil || f.Source != "not measured: make test-profile" {
		t.Errorf("unmeasured: %+v", f)
	}
	p := &SuiteProfile{Date: "2026-11-27T10:00:00Z", Commit: "abc", Passed: true, WallMinutes: 11.5}
	f := suiteFigure(p)
	if *f.Value != 11.5 || !*f.Met || f.Source != "test-profile 2026-11-27 abc" {
		t.Errorf("measured: %+v", f)
	}
	p.WallMinutes = 12.5
	if f := suiteFigure(p); *f.Met {
		t.Error("12.5 min is over the goal")
	}
	p.WallMinutes, p.Passed = 5, false
	if f := suiteFigure(p); *f.Met || f.Note == "" {
		t.Errorf("a failed suite meets nothing: %+v", f)
	}
	fs := withFigure([]Figure{{Name: "x"}, {Name: suiteName}}, f)
	if len(fs) != 2 || fs[1].Value == nil {
		t.Errorf("withFigure: %+v", fs)
	}
}

func TestWriteDocReplacesItsBlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "performance.md")
	if err := os.WriteFile(path, []byte("# Performance\n\nprose\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := SuiteProfile{Date: "2026-11-27T10:00:00Z", Commit: "abc", Passed: true, WallMinutes: 11.5,
		SlowestPkgs: []Timing{{"pkg", 100}}, SlowestTest: []Timing{{"pkg TestA", 90}}}
	for i := 0; i < 2; i++ { // the second write replaces the first
		if err := writeDoc(path, p); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	doc := string(b)
	if strings.Count(doc, docBegin) != 1 || !strings.Contains(doc, "prose") {
		t.Fatalf("doc:\n%s", doc)
	}
	for _, want := range []string{"**11.5 min**", "met", "commit abc", "| `pkg TestA` | 90.0 |"} {
		if !strings.Contains(doc, want) {
			t.Errorf("doc lacks %q:\n%s", want, doc)
		}
	}
}
