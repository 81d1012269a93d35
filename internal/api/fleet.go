package api

import (
	"time"

	"github.com/rackroll/rackroll/internal/fleet"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/selfupgrade"
)

// FleetWorkflowName rolls a runtime release over a fleet of registered
// clusters in waves (docs/fleet.md): the one workflow of no single
// cluster.
const FleetWorkflowName = "FleetWorkflow"

// FleetID is a fleet's workflow id: one run per fleet, idle between
// rollouts.
func FleetID(name string) string { return "fleet:" + name }

// The fleet's updates (query QueryStatus answers FleetStatus). Continue and
// cancel are the names every other run uses (UpdateContinue, UpdateCancel).
const (
	UpdateFleetSpec  = "fleet-spec"  // FleetSpecRequest: replace the spec while idle
	UpdateFleetStart = "fleet-start" // FleetStartRequest: roll a release
	UpdateFleetPause = "fleet-pause" // FleetPauseRequest
)

// FleetInput starts FleetWorkflow (`starter fleet create`).
type FleetInput struct {
	Spec   fleet.Spec  `json:"spec"`
	Tuning FleetTuning `json:"tuning,omitempty"`
	// Carry is set on a run that continued as new (its history grew, a
	// rollout ended, or another rackroll build became current).
	Carry *FleetCarry `json:"carry,omitempty"`
}

// FleetTuning: how often the fleet reads its sites (every WatchEvery, in
// one long read of at most WatchFor that returns on a change), and how
// long a site's workers may be silent before it halts the rollout. Zero:
// the defaults (fleet.Tuned); benchmarks and tests compress them.
type FleetTuning struct {
	WatchEvery       time.Duration `json:"watchEvery,omitempty"`
	WatchFor         time.Duration `json:"watchFor,omitempty"`
	UnreachableAfter time.Duration `json:"unreachableAfter,omitempty"`
}

// FleetCarry is the fleet's state handed to its next run.
type FleetCarry struct {
	selfupgrade.CarryHeader
	Status FleetStatus `json:"status"`
}

// FleetSpecRequest replaces a fleet's spec (refused during a rollout).
type FleetSpecRequest struct {
	Spec fleet.Spec `json:"spec"`
	By   string     `json:"by,omitempty"`
}

// FleetStartRequest rolls TargetVersion over the fleet: each site's own
// RuntimeUpgradeWorkflow with this strategy.
type FleetStartRequest struct {
	TargetVersion  string               `json:"targetVersion"`
	UpdateStrategy model.UpdateStrategy `json:"updateStrategy"`
	// DrainTimeout and VMShutdownTimeout as UpgradeInput's (labs shorten
	// them).
	DrainTimeout      time.Duration `json:"drainTimeout,omitempty"`
	VMShutdownTimeout time.Duration `json:"vmShutdownTimeout,omitempty"`
	By                string        `json:"by,omitempty"`
}

// FleetPauseRequest pauses a rollout: no new site starts; running sites
// go on (a site's upgrade pauses only by its strategy or a threshold).
type FleetPauseRequest struct {
	// Sites also pauses every running site's upgrade before its next group
	// or rack (pause-update); the fleet's continue continues them.
	Sites bool   `json:"sites,omitempty"`
	By    string `json:"by,omitempty"`
}

// FleetCancelRequest: Sites also cancels every running site's upgrade;
// without it running sites go on and only new starts stop.
type FleetCancelRequest struct {
	Sites bool   `json:"sites,omitempty"`
	By    string `json:"by,omitempty"`
}

// FleetStatus is what query status answers: names and verdicts only,
// never a site's servers, so it is bounded by fleet.MaxSites.
type FleetStatus struct {
	Name  string     `json:"name"`
	Spec  fleet.Spec `json:"spec"`
	State string     `json:"state"` // fleet.State*
	// Rollout is the rollout in progress, or the last one.
	Rollout *FleetRollout `json:"rollout,omitempty"`
	// NextMove: while another rackroll build is current, where this run
	// moves to it (query only).
	NextMove string `json:"nextMove,omitempty"`
}

// FleetRollout is one release rolled over the fleet.
type FleetRollout struct {
	Request   FleetStartRequest `json:"request"`
	Waves     []fleet.Wave      `json:"waves"`
	Wave      int               `json:"wave"` // the wave running or baking (index into Waves)
	Sites     []fleet.Site      `json:"sites"`
	BakeUntil *time.Time        `json:"bakeUntil,omitempty"`
	Halt      *fleet.Halt       `json:"halt,omitempty"`
	Paused    bool              `json:"paused,omitempty"`
	// PausedSites are the sites the fleet's pause paused (fleet pause
	// --sites): its continue continues them.
	PausedSites []string   `json:"pausedSites,omitempty"`
	Cancelled   bool       `json:"cancelled,omitempty"`
	StartedAt   time.Time  `json:"startedAt"`
	FinishedAt  *time.Time `json:"finishedAt,omitempty"`
	// Events is what happened, newest last, at most fleet.MaxEvents.
	Events []fleet.Event `json:"events,omitempty"`
}
