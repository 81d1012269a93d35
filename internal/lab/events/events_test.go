package events

import (
	"path/filepath"
	"testing"
)

func TestLogWritesJSONLinesThatReadBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	l.Emit(PowerOff, "rack1-c1", "rack1", map[string]any{"reason": "ForceOff"})
	l.Emit(PowerOn, "rack1-c1", "rack1", nil)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Kind != PowerOff || got[1].Kind != PowerOn || got[0].Detail["reason"] != "ForceOff" {
		t.Fatalf("read back %+v", got)
	}
	if got[1].Time.Before(got[0].Time) {
		t.Fatalf("times out of order: %v then %v", got[0].Time, got[1].Time)
	}
	if l.Count(PowerOn, "rack1-c1") != 1 || l.Count(PowerOn, "other") != 0 {
		t.Fatal("Count wrong")
	}
}

func TestNilLogIsASink(t *testing.T) {
	var l *Log
	var s Sink = l
	s.Emit(Fault, "x", "y", nil) // must not panic
}
