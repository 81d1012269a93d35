package fleet

import (
	"fmt"
	"time"
)

// A fleet's states (FleetStatus.State).
const (
	StateIdle       = "Idle"       // no rollout running
	StateRolling    = "Rolling"    // a wave's sites are upgrading
	StateBaking     = "Baking"     // a finished wave runs before the next starts
	StatePaused     = "Paused"     // the operator paused: no new site starts
	StateHalted     = "Halted"     // a halt rule fired: no new site starts
	StateCompleted  = "Completed"  // the last rollout reached every site
	StateCancelling = "Cancelling" // cancelled: it ends at its next safe point
	StateCancelled  = "Cancelled"  // the last rollout was cancelled
)

// A site's verdicts, as the fleet judged it at its last reading.
const (
	Pending     = "pending"     // not started
	Current     = "current"     // already at the target: not started
	Running     = "running"     // its upgrade runs
	Waiting     = "waiting"     // paused by its strategy (PauseAfterRack) or the operator's word, between units: waits for its operator
	Succeeded   = "succeeded"   // its upgrade completed
	Failed      = "failed"      // its upgrade failed (or was terminated)
	Cancelled   = "cancelled"   // its upgrade was cancelled
	Paused      = "paused"      // paused on its threshold, its canary or its capacity
	Storm       = "storm"       // its health monitor reports a remediation storm (cluster Degraded)
	Unreachable = "unreachable" // its worker does not poll, or its ledger does not answer
)

// Halts: a verdict that stops the rollout from starting any new site until
// the operator's word (docs/fleet.md#a-sites-verdict).
func Halts(verdict string) bool {
	switch verdict {
	case Failed, Cancelled, Paused, Storm, Unreachable:
		return true
	}
	return false
}

// Site is one site of a rollout: its name and verdict, never its servers.
type Site struct {
	Cluster string `json:"cluster"`
	Wave    int    `json:"wave"`
	Verdict string `json:"verdict"`
	Detail  string `json:"detail,omitempty"`
	// RunID is the first run of the site's upgrade the fleet started, so
	// that a later upgrade of the site by hand is not mistaken for it.
	RunID      string     `json:"runId,omitempty"`
	StartedAt  *time.Time `json:"startedAt,omitempty"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	// Acknowledged: the operator continued past this site's halt; it no
	// longer halts, nor holds its wave.
	Acknowledged bool `json:"acknowledged,omitempty"`
	// SilentSince: Reading's, kept for the next read.
	SilentSince time.Time `json:"silentSince,omitzero"`
}

// Done: the site holds its wave no longer.
func (s Site) Done() bool {
	return s.Verdict == Succeeded || s.Verdict == Current || (s.Acknowledged && s.Verdict != Running && s.Verdict != Waiting)
}

// Halt says which site stopped the rollout and why.
type Halt struct {
	Site    string    `json:"site"`
	Verdict string    `json:"verdict"`
	Reason  string    `json:"reason"`
	At      time.Time `json:"at"`
}

// Event is a line of a rollout's log.
type Event struct {
	At   time.Time `json:"at"`
	Site string    `json:"site,omitempty"`
	What string    `json:"what"`
}

// MaxEvents bounds a rollout's log (the oldest go first).
const MaxEvents = 200

// Reading is what the fleet read of a site: one verdict with its detail.
type Reading struct {
	Cluster string `json:"cluster"`
	Verdict string `json:"verdict"`
	Detail  string `json:"detail,omitempty"`
	// SilentSince is since when the site's task queue has listed no
	// poller at all (zero: it lists one): a restarted server lists none
	// until the workers poll again, so silence is counted from the first
	// read that saw none, across reads (the fleet hands it back).
	SilentSince time.Time `json:"silentSince,omitzero"`
}

// Same: r says what k says.
func (r Reading) Same(k Reading) bool {
	return r.Cluster == k.Cluster && r.Verdict == k.Verdict && r.Detail == k.Detail && r.SilentSince.Equal(k.SilentSince)
}

// Observation is what a site showed: its upgrade run, its ledger and its
// workers. Judge turns it into a verdict.
type Observation struct {
	// Run is the site's latest upgrade run's status: "" (none), "Running",
	// "Completed", "Failed", "Canceled", "Terminated", "TimedOut".
	Run string
	// AtTarget: the ledger's version is the rollout's (set only when an
	// upgrade completes); OtherTarget: an upgrade to another version is in
	// progress there.
	AtTarget, OtherTarget bool
	// Paused: the running upgrade is paused (the ledger says
	// UpdatePaused); PauseByStrategy: by its strategy (PauseAfterRack),
	// not by a threshold, the canary or the capacity guard.
	Paused, PauseByStrategy bool
	PausedAt, PauseMessage  string
	// ClusterStatus is the ledger's status; LedgerError says it did not
	// answer.
	ClusterStatus, ClusterMessage, LedgerError string
	// WorkerSilentFor: how long no worker polled the site's task queue.
	WorkerSilentFor time.Duration
}

// Judge is the verdict on a site of a rollout; unreachableAfter is how
// long a site's workers may be silent.
func Judge(o Observation, unreachableAfter time.Duration) Reading {
	switch {
	case o.LedgerError != "":
		return Reading{Verdict: Unreachable, Detail: "its ledger did not answer: " + o.LedgerError}
	case o.WorkerSilentFor > unreachableAfter && !o.AtTarget:
		return Reading{Verdict: Unreachable, Detail: fmt.Sprintf("no worker polled its task queue for %v", silence(o.WorkerSilentFor))}
	case o.ClusterStatus == "Degraded":
		return Reading{Verdict: Storm, Detail: "its cluster is Degraded" + withMessage(o.ClusterMessage)}
	case o.OtherTarget:
		return Reading{Verdict: Failed, Detail: "another upgrade runs there: " + o.ClusterMessage}
	}
	switch o.Run {
	case "Completed":
		if o.AtTarget {
			return Reading{Verdict: Succeeded}
		}
		return Reading{Verdict: Cancelled, Detail: "its upgrade ended short of the target" + withMessage(o.ClusterMessage)}
	case "Failed", "Terminated", "TimedOut":
		return Reading{Verdict: Failed, Detail: "its upgrade " + lower(o.Run) + withMessage(o.ClusterMessage)}
	case "Canceled":
		return Reading{Verdict: Cancelled, Detail: "its upgrade was cancelled"}
	case "":
		if o.AtTarget {
			return Reading{Verdict: Current, Detail: "already at the target"}
		}
		return Reading{Verdict: Pending}
	}
	if o.Paused && o.PauseByStrategy {
		return Reading{Verdict: Waiting, Detail: cmpOr(o.PauseMessage, "paused by its strategy after a rack: `starter upgrade continue` on the site")}
	}
	if o.Paused {
		return Reading{Verdict: Paused, Detail: "paused" + at(o.PausedAt) + withMessage(cmpOr(o.PauseMessage, o.ClusterMessage))}
	}
	return Reading{Verdict: Running}
}

// silence says how long.
func silence(d time.Duration) string { return d.Round(time.Second).String() }

func at(unit string) string {
	if unit == "" {
		return ""
	}
	return " at " + unit
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func lower(run string) string {
	switch run {
	case "Failed":
		return "failed"
	case "Terminated":
		return "was terminated"
	case "TimedOut":
		return "timed out"
	}
	return run
}

func withMessage(m string) string {
	if m == "" {
		return ""
	}
	return ": " + m
}

// The defaults of a fleet's watch (api.FleetTuning): a site's change is
// seen within WatchEvery; the fleet's history grows by one read per
// WatchFor while nothing changes; a site worker silent past
// UnreachableAfter (a poll is at most a minute) halts the rollout.
const (
	DefaultWatchEvery       = 30 * time.Second
	DefaultWatchFor         = 5 * time.Minute
	DefaultUnreachableAfter = 3 * time.Minute
)
