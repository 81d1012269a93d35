package redfish

import "time"

// clock schedules the machine's transitions. Tests swap in a manual clock so
// the state machine can be stepped without sleeping.
type clock interface {
	AfterFunc(d time.Duration, f func()) stopper
	Now() time.Time
}

type stopper interface{ Stop() bool }

type realClock struct{}

func (realClock) AfterFunc(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }

func (realClock) Now() time.Time { return time.Now() }
