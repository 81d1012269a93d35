package kubeapi

import (
	"strings"
	"testing"
)

// A member that says it was removed and then logs more than the tail keeps
// is still known to have said so; other text is only found while kept.
func TestTailRemembersMarkersPastItsSize(t *testing.T) {
	tb := &tailBuffer{max: 64}
	tb.Write([]byte("warn: data-dir used by this member must "))
	tb.Write([]byte("be removed\n")) // the marker split over two writes
	tb.Write([]byte("old line\n"))
	tb.Write([]byte(strings.Repeat("shutting down: a long warning line\n", 10)))
	if !tb.contains("must be removed") {
		t.Error("the removal marker was forgotten once the tail moved on")
	}
	if tb.contains("old line") {
		t.Error("text older than the tail is still found")
	}
	if tb.contains("address already in use") {
		t.Error("a marker never written is found")
	}
	if len(tb.buf) > 64 {
		t.Errorf("the tail keeps %d bytes, max 64", len(tb.buf))
	}
}
