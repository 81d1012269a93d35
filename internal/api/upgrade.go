package api

import (
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/rackroll/rackroll/internal/upgradeplan"
)

// UpgradeInput starts RuntimeUpgradeWorkflow (id upgrade:<cluster>). Field
// names follow the operator API so the temporal CLI works with JSON:
// {"cluster":"C","targetVersion":"V","updateStrategy":{...}}.
type UpgradeInput struct {
	Cluster        string               `json:"cluster"`
	TargetVersion  string               `json:"targetVersion"`
	UpdateStrategy model.UpdateStrategy `json:"updateStrategy"`
	// ImageURLTemplate builds the image URL from the version ("{version}"
	// is replaced). Empty: the cluster's default.
	ImageURLTemplate string `json:"imageURLTemplate,omitempty"`
	// DrainTimeout and VMShutdownTimeout default to 20 and
	// 10 minutes (docs/behaviour.md#time-limits); labs shorten them.
	DrainTimeout      time.Duration `json:"drainTimeout,omitempty"`
	VMShutdownTimeout time.Duration `json:"vmShutdownTimeout,omitempty"`
	// Carry is set only on a run that continued as new to move to another
	// rackroll build (docs/self-upgrade.md): where the run before it
	// stopped, and its status so far.
	Carry *UpgradeCarry `json:"carry,omitempty"`
}

// UpgradeCarry is what a runtime upgrade hands the run that goes on on a
// new build. Fields are only ever added, each with a zero value that
// means the old behaviour (workflows/testdata/carry).
type UpgradeCarry struct {
	selfupgrade.CarryHeader
	// Status is the upgrade's status as the run left it: its units and
	// servers, StartedAt, the strategy with its defaults.
	Status UpgradeStatus `json:"status"`
	// PausedAt is the unit the run was paused at (a compute rack, after it
	// settled), with the pause's message; the next run waits there again.
	PausedAt     string `json:"pausedAt,omitempty"`
	PauseMessage string `json:"pauseMessage,omitempty"`
	// Moves counts the moves so far.
	Moves int `json:"moves"`
	// WaitBefore and WaitUntil: the run moved during the wait between
	// racks; the next waits until WaitUntil, then takes the pause after the
	// rack before WaitBefore if the strategy has one, then starts it. An
	// older build would skip both: a carry with them needs format 2.
	WaitBefore string     `json:"waitBefore,omitempty"`
	WaitUntil  *time.Time `json:"waitUntil,omitempty"`
	// Asked is the operator's pause asked and not yet taken (its reason);
	// HeldFor, the reason of the operator's pause the run moved at. A
	// build before format 4 would go on without either: MinReader 4.
	Asked   string `json:"asked,omitempty"`
	HeldFor string `json:"heldFor,omitempty"`
}

// PauseRequest asks a running upgrade to pause before its next unit (a
// management group or a compute rack) starts; Reason is shown with the
// pause ("" for none).
type PauseRequest struct {
	Reason string `json:"reason,omitempty"`
	// Withdraw takes back the pause asked with Reason: not taken yet, it
	// is asked no more; taken, the upgrade goes on. Any other pause
	// stays (a fleet continues only what it paused).
	Withdraw bool `json:"withdraw,omitempty"`
}

// Upgrade phases (query status .phase).
const (
	PhasePreflight    = "Preflight"
	PhaseControlPlane = "ControlPlane"
	PhaseManagement   = "Management"
	PhaseCompute      = "Compute"
	PhaseDone         = "Done"
)

// Unit and server states (troubleshoot steps use them too), and the
// status of a unit: upgradeplan folds server results into it.
const (
	StatePending   = upgradeplan.StatePending
	StateRunning   = upgradeplan.StateRunning
	StateSucceeded = upgradeplan.StateSucceeded
	StateFailed    = upgradeplan.StateFailed
	StatePaused    = upgradeplan.StatePaused
	StateSkipped   = upgradeplan.StateSkipped
	StateCancelled = upgradeplan.StateCancelled
)

type (
	ServerStatus = upgradeplan.ServerStatus
	UnitStatus   = upgradeplan.UnitStatus
)

// UpgradeStatus is what query `status` returns.
type UpgradeStatus struct {
	Cluster               string               `json:"cluster"`
	TargetVersion         string               `json:"targetVersion"`
	Strategy              model.UpdateStrategy `json:"strategy"`
	Phase                 string               `json:"phase"`
	DetailedStatus        string               `json:"detailedStatus"`
	DetailedStatusMessage string               `json:"detailedStatusMessage"`
	// NextMove says, while another rackroll build is current and this run
	// has not moved to it yet, where it will (query only: not in history).
	NextMove         string            `json:"nextMove,omitempty"`
	ControlPlane     UnitStatus        `json:"controlPlane"`
	ManagementGroups []UnitStatus      `json:"managementGroups"`
	Racks            []UnitStatus      `json:"racks"`
	Plan             *upgradeplan.Plan `json:"plan,omitempty"`
	// Image is what the image preflight saw of the target image.
	Image *ImageCheck `json:"image,omitempty"`
	// Canary is the verdict on the compute servers that went first
	// (upgradeplan.Canary).
	Canary string `json:"canary,omitempty"`
	// CanaryContinuedAt is when the operator continued after a systemic
	// canary (its rack's ContinuedAt may be a later pause's).
	CanaryContinuedAt *time.Time `json:"canaryContinuedAt,omitempty"`
	// Capacity is the capacity guard's judgement before each drain.
	Capacity []CapacityCheck `json:"capacity,omitempty"`
	// CurrentRun is the rack or stage child in flight. It reports its
	// servers' states as they change (RackProgress), so this status is
	// complete by itself.
	CurrentRun string     `json:"currentRun,omitempty"`
	StartedAt  time.Time  `json:"startedAt"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	// KeysNote says, once the upgrade ended, how the BMM keysets are being
	// re-established on the reinstalled servers (docs/keysets.md).
	KeysNote string `json:"keysNote,omitempty"`
}

// RackInput starts RackUpgradeWorkflow.
type RackInput struct {
	Cluster string           `json:"cluster"`
	Rack    upgradeplan.Rack `json:"rack"`
	Server  ServerInput      `json:"server"` // template: BMM and node filled per server
	// Capacity, when set, is the guard to run before the first wave.
	Capacity *CapacityAsk `json:"capacity,omitempty"`
}

// RackResult is what a rack returns.
type RackResult struct {
	Succeeded int            `json:"succeeded"`
	Failed    int            `json:"failed"`
	Servers   []ServerStatus `json:"servers"`
	// Capacity is what the capacity guard found (RackInput.Capacity).
	// Held: it found a shortfall under capacityPolicy Pause, so the rack
	// started no server; the parent pauses and runs it again when told.
	Capacity *CapacityCheck `json:"capacity,omitempty"`
	Held     bool           `json:"held,omitempty"`
}

// RackProgress is what a rack child signals its parent (SignalRackProgress)
// as its servers start and finish: the servers whose state changed since
// its last report.
type RackProgress struct {
	Run     string         `json:"run"` // the rack child's workflow id
	Servers []ServerStatus `json:"servers"`
	// Capacity: the guard found a shortfall (or could not look) and the
	// rack drains anyway; the parent's status names it at once.
	Capacity *CapacityCheck `json:"capacity,omitempty"`
}

// ServerInput starts ServerUpgradeWorkflow (id upgrade:<cluster>:<bmm>).
type ServerInput struct {
	Cluster           string        `json:"cluster"`
	BMM               string        `json:"bmm"`
	TargetVersion     string        `json:"targetVersion"`
	ImageURL          string        `json:"imageURL"`
	Mode              string        `json:"mode,omitempty"` // KCP step action, "" for management/compute
	DrainTimeout      time.Duration `json:"drainTimeout,omitempty"`
	VMShutdownTimeout time.Duration `json:"vmShutdownTimeout,omitempty"`
	// Limits is the time-limit table the upgrade read when it started: the
	// server's waits and the children's run limits are bounded by it (nil
	// in runs started before, which read the ledger's).
	Limits *model.Timeouts `json:"limits,omitempty"`
}

// ServerResult is what a server upgrade returns.
type ServerResult struct {
	BMM       string `json:"bmm"`
	Succeeded bool   `json:"succeeded"`
	Error     string `json:"error,omitempty"`
	// Step is the step that failed (the canary compares them).
	Step string `json:"step,omitempty"`
	// AlreadyAtTarget: the server was at the target version and Ready
	// before this run; nothing was done to it.
	AlreadyAtTarget bool `json:"alreadyAtTarget,omitempty"`
	// Gated: the live control-plane check refused the step before anything
	// was touched (Error says why); the upgrade pauses instead of failing.
	Gated bool `json:"gated,omitempty"`
	// GateReason is the gate's own words, for the upgrade's pause.
	GateReason     string `json:"gateReason,omitempty"`
	DrainTimedOut  bool   `json:"drainTimedOut,omitempty"`
	VMsTimedOut    bool   `json:"vmsTimedOut,omitempty"`
	RuntimeVersion string `json:"runtimeVersion,omitempty"`
	// Firmware is what the upgrade's firmware step did, a line per
	// component ("BIOS 1.10.0 → 1.13.2", proven by the inventory), and
	// the components it could not judge.
	Firmware []string `json:"firmware,omitempty"`
}
