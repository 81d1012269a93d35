package api

import (
	"time"

	"github.com/rackroll/rackroll/internal/model"
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
	// DrainTimeout and VMShutdownTimeout default to the reference's 20 and
	// 10 minutes; labs shorten them.
	DrainTimeout      time.Duration `json:"drainTimeout,omitempty"`
	VMShutdownTimeout time.Duration `json:"vmShutdownTimeout,omitempty"`
}

// Upgrade phases (query status .phase).
const (
	PhasePreflight    = "Preflight"
	PhaseControlPlane = "ControlPlane"
	PhaseManagement   = "Management"
	PhaseCompute      = "Compute"
	PhaseDone         = "Done"
)

// Unit states for racks, groups and servers.
const (
	StatePending   = "Pending"
	StateRunning   = "Running"
	StateSucceeded = "Succeeded"
	StateFailed    = "Failed"
	StatePaused    = "Paused"
	StateSkipped   = "Skipped"
	StateCancelled = "Cancelled"
)

// ServerStatus is one server within a unit.
type ServerStatus struct {
	Name  string `json:"name"`
	State string `json:"state"`
	Error string `json:"error,omitempty"`
}

// UnitStatus is the control plane, a management group or a rack.
type UnitStatus struct {
	Name       string         `json:"name"`
	State      string         `json:"state"`
	Total      int            `json:"total"`
	Succeeded  int            `json:"succeeded"`
	Failed     int            `json:"failed"`
	Required   int            `json:"required"`
	StartedAt  *time.Time     `json:"startedAt,omitempty"`
	FinishedAt *time.Time     `json:"finishedAt,omitempty"`
	Servers    []ServerStatus `json:"servers"`
	// ContinuedAt is when continue-update released the pause after this
	// unit (missed threshold or PauseAfterRack): the operator's word on
	// record, which `starter lab check --upgrade` holds the log against.
	ContinuedAt *time.Time `json:"continuedAt,omitempty"`
}

// UpgradeStatus is what query `status` returns.
type UpgradeStatus struct {
	Cluster               string               `json:"cluster"`
	TargetVersion         string               `json:"targetVersion"`
	Strategy              model.UpdateStrategy `json:"strategy"`
	Phase                 string               `json:"phase"`
	DetailedStatus        string               `json:"detailedStatus"`
	DetailedStatusMessage string               `json:"detailedStatusMessage"`
	ControlPlane          UnitStatus           `json:"controlPlane"`
	ManagementGroups      []UnitStatus         `json:"managementGroups"`
	Racks                 []UnitStatus         `json:"racks"`
	Plan                  *upgradeplan.Plan    `json:"plan,omitempty"`
	// CurrentRun is the rack or stage child in flight; its query status
	// has the live state of each of its servers.
	CurrentRun string     `json:"currentRun,omitempty"`
	StartedAt  time.Time  `json:"startedAt"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
}

// RackInput starts RackUpgradeWorkflow.
type RackInput struct {
	Cluster string           `json:"cluster"`
	Rack    upgradeplan.Rack `json:"rack"`
	Server  ServerInput      `json:"server"` // template: BMM and node filled per server
}

// RackResult is what a rack returns.
type RackResult struct {
	Succeeded int            `json:"succeeded"`
	Failed    int            `json:"failed"`
	Servers   []ServerStatus `json:"servers"`
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
}

// ServerResult is what a server upgrade returns.
type ServerResult struct {
	BMM            string `json:"bmm"`
	Succeeded      bool   `json:"succeeded"`
	Error          string `json:"error,omitempty"`
	DrainTimedOut  bool   `json:"drainTimedOut,omitempty"`
	VMsTimedOut    bool   `json:"vmsTimedOut,omitempty"`
	RuntimeVersion string `json:"runtimeVersion,omitempty"`
}
