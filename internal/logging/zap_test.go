package logging

import (
	"testing"

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
