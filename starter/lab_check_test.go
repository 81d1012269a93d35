//go:build lab

package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
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

// --upgrade adds the threshold rule: rack1 missed its threshold, so rack2
// may start only after the continue-update the upgrade's status records.
func TestLabCheckUpgradeThreshold(t *testing.T) {
	log := writeLog(t,
		[3]string{events.ReimageStart, "rack1-c1", "rack1"}, [3]string{events.ReimageFailed, "rack1-c1", "rack1"},
		[3]string{events.ReimageStart, "rack2-c1", "rack2"}, [3]string{events.NodeReady, "rack2-c1", "rack2"})
	evs, err := events.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	failedAt, rack2At := evs[1].Time, evs[2].Time
	status := func(continuedAt *time.Time) string {
		st := api.UpgradeStatus{Cluster: "site-a", TargetVersion: "4.2.0", Racks: []api.UnitStatus{
			{Name: "rack1", Required: 1, Failed: 1, Servers: []api.ServerStatus{{Name: "rack1-c1"}}, ContinuedAt: continuedAt},
			{Name: "rack2", Required: 1, Succeeded: 1, Servers: []api.ServerStatus{{Name: "rack2-c1"}}},
		}}
		b, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "upgrade.json")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	between := failedAt.Add(rack2At.Sub(failedAt) / 2)
	late := rack2At.Add(time.Second)
	for _, c := range []struct {
		name        string
		continuedAt *time.Time
		violation   bool
	}{
		{"continued before rack2 started", &between, false},
		{"never continued", nil, true},
		{"continued after rack2 started", &late, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := run(t, "lab", "check", "--events", log, "--inventory", "../examples/four-rack.yaml", "--upgrade", status(c.continuedAt))
			if !c.violation {
				if err != nil || !strings.Contains(out, "0 violations") {
					t.Fatalf("want clean, got %v:\n%s", err, out)
				}
				return
			}
			var ce *codedError
			if !errors.As(err, &ce) || ce.code != exitFailed || !strings.Contains(out, invariants.RuleThreshold) {
				t.Fatalf("want a %s violation and exit 2, got %v:\n%s", invariants.RuleThreshold, err, out)
			}
		})
	}
	_, _, err = run(t, "lab", "check", "--events", log, "--upgrade", writeLog(t))
	if err == nil || !strings.Contains(err.Error(), "starter upgrade status -o json") {
		t.Fatalf("a file that is not an upgrade status: want a clear error, got %v", err)
	}
}
