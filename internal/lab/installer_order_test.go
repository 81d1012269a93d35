package lab

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/stretchr/testify/assert"
)

func TestInstallerOrderProblems(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ev := func(sec int, kind, bmm string) events.Event {
		return events.Event{Time: t0.Add(time.Duration(sec) * time.Second), Kind: kind, BMM: bmm}
	}
	for _, tc := range []struct {
		name string
		evs  []events.Event
		want []string
	}{
		{"ejected after the node came back", []events.Event{
			ev(0, events.MediaInsert, "a"), ev(1, events.ReimageStart, "a"), ev(5, events.ReimageDone, "a"),
			ev(7, events.NodeReady, "a"), ev(8, events.MediaEject, "a")}, nil},
		{"ejected during the install", []events.Event{
			ev(1, events.ReimageStart, "a"), ev(2, events.MediaEject, "a"), ev(2, events.ReimageFailed, "a")},
			[]string{"a: installer ejected at 00:00:02.000, during the install that started at 00:00:01.000"}},
		{"ejected before the node was Ready", []events.Event{
			ev(1, events.ReimageStart, "a"), ev(5, events.ReimageDone, "a"), ev(6, events.MediaEject, "a"), ev(7, events.NodeReady, "a")},
			[]string{"a: installer ejected at 00:00:06.000, after the install finished at 00:00:05.000 but before the node was Ready"}},
		{"each BMM on its own", []events.Event{
			ev(1, events.ReimageStart, "a"), ev(1, events.ReimageStart, "b"), ev(3, events.ReimageDone, "a"),
			ev(4, events.NodeReady, "a"), ev(4, events.MediaEject, "a"), ev(5, events.MediaEject, "b")},
			[]string{"b: installer ejected at 00:00:05.000, during the install that started at 00:00:01.000"}},
		{"a failed install may be ejected", []events.Event{
			ev(1, events.ReimageStart, "a"), ev(3, events.ReimageFailed, "a"), ev(4, events.MediaEject, "a")}, nil},
		{"eject before any install (clearing a stale image)", []events.Event{
			ev(0, events.MediaEject, "a"), ev(1, events.MediaInsert, "a")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, InstallerOrderProblems(tc.evs))
		})
	}
}
