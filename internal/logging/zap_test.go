package logging

import (
	"testing"

	"go.temporal.io/api/serviceerror"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestZapAdapterKeepsKeyValuesAndWith(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	l := NewZap(zap.New(core))
	l.With("cluster", "site-a").Info("reimaged", "bmm", "rack1-c1", "odd")
	l.Warn("slow", "ms", 1200)

	entries := logs.All()
	if len(entries) != 2 {
		t.Fatalf("got %d entries", len(entries))
	}
	m := entries[0].ContextMap()
	if m["cluster"] != "site-a" || m["bmm"] != "rack1-c1" || m["_extra"] != "odd" {
		t.Fatalf("fields = %v", m)
	}
	if entries[1].Level != zap.WarnLevel || entries[1].ContextMap()["ms"] != int64(1200) {
		t.Fatalf("second entry = %+v", entries[1])
	}
}

func TestNewRejectsUnknownLevel(t *testing.T) {
	if _, err := New("loud", false); err == nil {
		t.Fatal("want error for level loud")
	}
	if _, err := New("info", false); err != nil {
		t.Fatal(err)
	}
}

// A heartbeat refused because the activity's workflow has completed is the
// way an abandoned activity learns to stop: debug, not a warning. Other
// heartbeat failures stay warnings.
func TestAbandonedActivityHeartbeatIsDebug(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	l := NewZap(zap.New(core))
	l.Warn(heartbeatFailed, "ActivityType", "WatchReimage", "Error", serviceerror.NewNotFound("workflow execution already completed"))
	l.Warn(heartbeatFailed, "ActivityType", "WatchReimage", "Error", serviceerror.NewUnavailable("connection refused"))

	entries := logs.All()
	if len(entries) != 2 || entries[0].Level != zap.DebugLevel || entries[1].Level != zap.WarnLevel {
		t.Fatalf("levels: %+v", entries)
	}
}
