package lab

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
)

// InstallerOrderProblems checks, from the event log, that every installer
// stayed inserted until its node came back: for each BMM, no media-eject
// between a reimage-start and the node-ready that follows the reimage-done.
// Each problem names the BMM and the times. Safety checks and end-to-end
// tests call it on a run's log.
func InstallerOrderProblems(evs []events.Event) []string {
	type phase int
	const (
		idle       phase = iota
		installing       // reimage-start seen
		booting          // reimage-done seen, node not Ready yet
	)
	state := map[string]phase{}
	since := map[string]time.Time{}
	var out []string
	stamp := func(t time.Time) string { return t.UTC().Format("15:04:05.000") }
	for _, e := range evs {
		if e.BMM == "" {
			continue
		}
		switch e.Kind {
		case events.ReimageStart:
			state[e.BMM], since[e.BMM] = installing, e.Time
		case events.ReimageDone:
			if state[e.BMM] == installing {
				state[e.BMM], since[e.BMM] = booting, e.Time
			}
		case events.ReimageFailed:
			state[e.BMM] = idle
		case events.NodeReady:
			if state[e.BMM] == booting {
				state[e.BMM] = idle
			}
		case events.MediaEject:
			switch state[e.BMM] {
			case installing:
				out = append(out, fmt.Sprintf("%s: installer ejected at %s, during the install that started at %s",
					e.BMM, stamp(e.Time), stamp(since[e.BMM])))
				state[e.BMM] = idle
			case booting:
				out = append(out, fmt.Sprintf("%s: installer ejected at %s, after the install finished at %s but before the node was Ready",
					e.BMM, stamp(e.Time), stamp(since[e.BMM])))
				state[e.BMM] = idle
			}
		}
	}
	return out
}
