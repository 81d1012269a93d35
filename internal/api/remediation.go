package api

import (
	"strconv"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/internal/selfupgrade"
)

// MonitorInput starts HealthMonitorWorkflow (id monitor:<cluster>) and
// carries its state across continue-as-new.
type MonitorInput struct {
	Cluster string `json:"cluster"`
	// RoundsPerRun bounds the history: after this many rounds the monitor
	// continues as new (0: 200).
	RoundsPerRun int `json:"roundsPerRun,omitempty"`
	// Carry is the previous run's state after continue-as-new.
	Carry *MonitorCarry `json:"carry,omitempty"`
}

// MonitorCarry is what a monitor run hands to the next: the durable
// trigger clocks, the remediations still in flight and the recent ones.
type MonitorCarry struct {
	selfupgrade.CarryHeader
	Clocks []remediate.Clock   `json:"clocks"`
	Active []ActiveRemediation `json:"active"`
	Recent []RemediationRecord `json:"recent"`
	Storm  string              `json:"storm,omitempty"` // storm-guard message the monitor set on the ledger
	Runs   int                 `json:"runs"`
}

// ActiveRemediation is a RemediationWorkflow the monitor started and has
// not seen close.
type ActiveRemediation struct {
	BMM        string            `json:"bmm"`
	Role       model.Role        `json:"role"`
	Trigger    remediate.Trigger `json:"trigger"`
	Since      time.Time         `json:"since"`
	WorkflowID string            `json:"workflowId"`
	RunID      string            `json:"runId,omitempty"`
	StartedAt  time.Time         `json:"startedAt"`
}

// RemediationRecord is a remediation the monitor started, with its outcome
// once it closed.
type RemediationRecord struct {
	ActiveRemediation
	ClosedAt *time.Time `json:"closedAt,omitempty"`
	Outcome  string     `json:"outcome,omitempty"`
}

// ClockStatus is a running trigger clock as query `status` shows it.
type ClockStatus struct {
	BMM       string            `json:"bmm"`
	Trigger   remediate.Trigger `json:"trigger"`
	Since     time.Time         `json:"since"`
	Held      time.Duration     `json:"held"`
	Threshold time.Duration     `json:"threshold"`
	Due       bool              `json:"due"`
}

// Refusal is a due BMM the monitor did not remediate this round, and why.
type Refusal struct {
	BMM     string            `json:"bmm"`
	Role    model.Role        `json:"role"`
	Trigger remediate.Trigger `json:"trigger"`
	Since   time.Time         `json:"since"`
	Reason  string            `json:"reason"`
}

// MonitorStatus is what the monitor's query `status` returns.
type MonitorStatus struct {
	Cluster  string        `json:"cluster"`
	Rounds   int           `json:"rounds"` // rounds in this run
	Runs     int           `json:"runs"`   // continue-as-new generations so far
	Interval time.Duration `json:"interval"`
	// LastObservation is when the last round looked at the nodes;
	// LastError says why the last round could not (empty when it could).
	LastObservation time.Time           `json:"lastObservation"`
	LastError       string              `json:"lastError,omitempty"`
	Clocks          []ClockStatus       `json:"clocks"`
	Refusals        []Refusal           `json:"refusals"`
	Active          []ActiveRemediation `json:"active"`
	Recent          []RemediationRecord `json:"recent"`
	// UnhealthyControlPlane and Storm: the storm guard's view; Storm is
	// the message set on the ledger while it holds.
	UnhealthyControlPlane []string `json:"unhealthyControlPlane"`
	Storm                 string   `json:"storm,omitempty"`
}

// Summary is the one line `starter cluster show` prints under the BMMs.
func (s MonitorStatus) Summary() string {
	line := "monitor: "
	if s.LastObservation.IsZero() {
		line += "no observation yet"
	} else {
		line += "last observation " + s.LastObservation.UTC().Format(time.RFC3339)
	}
	line += ", " + plural(len(s.Clocks), "trigger clock") + ", " + plural(len(s.Active), "remediation") + " in flight"
	if n := len(s.Refusals); n > 0 {
		line += ", " + plural(n, "refusal")
	}
	if s.Storm != "" {
		line += "; " + s.Storm
	}
	if s.LastError != "" {
		line += "; last round failed: " + s.LastError
	}
	return line
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// RemediationInput starts RemediationWorkflow (id remediate:<cluster>:<bmm>).
type RemediationInput struct {
	Cluster string            `json:"cluster"`
	BMM     string            `json:"bmm"`
	Trigger remediate.Trigger `json:"trigger"`
	Since   time.Time         `json:"since"` // when the trigger's condition began
}

// StepRecord is one ladder step as it ran.
type StepRecord struct {
	Step       remediate.Step `json:"step"`
	OK         bool           `json:"ok"`
	Detail     string         `json:"detail,omitempty"`
	StartedAt  time.Time      `json:"startedAt"`
	FinishedAt *time.Time     `json:"finishedAt,omitempty"`
}

// RemediationStatus is query `status` of RemediationWorkflow and its result.
type RemediationStatus struct {
	Cluster   string            `json:"cluster"`
	BMM       string            `json:"bmm"`
	Role      model.Role        `json:"role"`
	Trigger   remediate.Trigger `json:"trigger"`
	Since     time.Time         `json:"since"`
	StartedAt time.Time         `json:"startedAt"`
	// Step is the step running now (empty when none).
	Step  remediate.Step `json:"step,omitempty"`
	Steps []StepRecord   `json:"steps"`
	// Continued lists the ladder steps an earlier remediation took within
	// the damping window: this one goes on after them.
	Continued []remediate.StepResult `json:"continued,omitempty"`
	// Outcome says where the ladder is, and how it ended once Finished.
	Outcome    string     `json:"outcome"`
	Finished   bool       `json:"finished"`
	Recovered  bool       `json:"recovered"`
	Refused    string     `json:"refused,omitempty"` // why it did not start (lease refused)
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
}

// FailoverInput starts KCPFailoverWorkflow (id failover:<cluster>).
type FailoverInput struct {
	Cluster string `json:"cluster"`
	Failed  string `json:"failed"` // the KCP (or spare) marked Unhealthy
	// Holder holds the lease on Failed already (the RemediationWorkflow that
	// gave up on it); empty: the failover leases Failed itself.
	Holder string `json:"holder,omitempty"`
	// Rebooted: the remediation rebooted Failed already (its ladder's
	// reboot failed); the management ladder does not reboot it again.
	Rebooted bool `json:"rebooted,omitempty"`
}

// FailoverStatus is query `status` of KCPFailoverWorkflow and its result.
type FailoverStatus struct {
	Cluster string                  `json:"cluster"`
	Failed  string                  `json:"failed"`
	Plan    *remediate.FailoverPlan `json:"plan,omitempty"`
	// Promoted: the spare is an active KCP; NewSpare: a management server
	// took the spare slot.
	Promoted bool   `json:"promoted"`
	NewSpare string `json:"newSpare,omitempty"`
	// FailedOutcome is how the failed BMM's provisioning as management
	// (and its management ladder) went; FailedRecovered when it serves again.
	FailedOutcome   string `json:"failedOutcome,omitempty"`
	FailedRecovered bool   `json:"failedRecovered"`
	// FallenOutcomes: servers whose provisioning for promotion failed,
	// and how the management ladder went on each.
	FallenOutcomes []FallenOutcome `json:"fallenOutcomes,omitempty"`
	Steps          []StepRecord    `json:"steps"`
	Error          string          `json:"error,omitempty"`
	Finished       bool            `json:"finished"`
}

// FallenOutcome is how the management ladder went on a server a failover
// could not provision for promotion.
type FallenOutcome struct {
	BMM       string `json:"bmm"`
	Outcome   string `json:"outcome"`
	Recovered bool   `json:"recovered"`
}
