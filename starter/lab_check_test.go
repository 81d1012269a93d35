package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/lab/events"
)

func writeLog(t *testing.T, evs ...[3]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	l := events.New(f)
	for _, e := range evs {
		l.Emit(e[0], e[1], e[2], map[string]any{"version": "4.2.0"})
	}
	l.Close()
	f.Close()
	return path
}

// A clean log: "0 violations" and exit 0.
func TestLabCheckClean(t *testing.T) {
	log := writeLog(t,
		[3]string{events.ReimageStart, "rack1-c1", "rack1"}, [3]string{events.NodeReady, "rack1-c1", "rack1"},
		[3]string{events.ReimageStart, "rack2-c1", "rack2"}, [3]string{events.NodeReady, "rack2-c1", "rack2"})
	out, _, err := run(t, "lab", "check", "--events", log, "--inventory", "../examples/four-rack.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "0 violations") {
		t.Fatalf("output:\n%s", out)
	}
}

// Two racks at once and out of order: listed, exit 2.
func TestLabCheckViolations(t *testing.T) {
	log := writeLog(t,
		[3]string{events.ReimageStart, "rack2-c1", "rack2"},
		[3]string{events.ReimageStart, "rack1-c1", "rack1"})
	out, _, err := run(t, "lab", "check", "--events", log, "--inventory", "../examples/four-rack.yaml")
	var ce *codedError
	if !errors.As(err, &ce) || ce.code != exitFailed {
		t.Fatalf("want exit 2, got %v", err)
	}
	for _, want := range []string{"rack-overlap", "rack-order", "2 violations"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
}
