package main

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

func TestReadyCell(t *testing.T) {
	since := time.Date(2026, 11, 22, 23, 1, 2, 0, time.UTC)
	for _, tc := range []struct {
		b    model.BMM
		want string
	}{
		{model.BMM{ReadyState: "True", ReadySince: &since}, "True"},
		{model.BMM{ReadyState: "Unknown", ReadySince: &since}, "Unknown since 2026-11-22T23:01:02Z"},
		{model.BMM{ReadyState: "False"}, "False"},
		{model.BMM{ReadyState: "True", ReadOnlyRootFS: true}, "True, root fs read-only"},
		{model.BMM{}, "-"},
	} {
		if got := readyCell(tc.b); got != tc.want {
			t.Errorf("readyCell(%+v) = %q, want %q", tc.b, got, tc.want)
		}
	}
}
