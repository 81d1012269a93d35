package api

import (
	"time"

	"github.com/rackroll/rackroll/internal/lease"
)

// Break-glass acts (the ledger's record and `starter cluster history`).
const (
	ActResume       = "resume"
	ActForce        = "force"
	ActLeaseRelease = "lease-release"
)

// MaxBreakGlassKept bounds the acts the ledger keeps (and carries across
// continue-as-new); older ones stay in the Temporal history.
const MaxBreakGlassKept = 200

// BreakGlassAct is one operator override the ledger accepted: what, on
// which BMM ("" for the cluster), by whom, when and why.
type BreakGlassAct struct {
	Time   time.Time `json:"time"`
	Act    string    `json:"act"` // ActResume, ActForce, ActLeaseRelease
	BMM    string    `json:"bmm,omitempty"`
	Holder string    `json:"holder,omitempty"` // the forced action, or the released lease's holder
	Reason string    `json:"reason"`
	By     string    `json:"by,omitempty"`
	// Detail is what the act overrode, in words (the status it left, the
	// lease it dropped).
	Detail string `json:"detail"`
}

// ResumeRequest returns a Degraded or Failed cluster to Running (`resume`).
type ResumeRequest struct {
	Reason string `json:"reason"`
	By     string `json:"by,omitempty"`
}

// ResumeResult is what was wrong when the cluster was resumed.
type ResumeResult struct {
	PreviousStatus  string `json:"previousStatus"`
	PreviousMessage string `json:"previousMessage"`
	// Unhealthy lists the BMMs marked Unhealthy; MissingKCP why the KCP
	// set is not full (lease.MissingKCP): resuming changes neither.
	Unhealthy  []string      `json:"unhealthy"`
	MissingKCP []string      `json:"missingKCP"`
	Leases     []lease.Lease `json:"leases"`
	Status     string        `json:"status"` // Running
	Message    string        `json:"message"`
}

// LeaseReleaseRequest frees the lease on a BMM whose holder has ended
// (`break-glass-release`).
type LeaseReleaseRequest struct {
	BMM    string `json:"bmm"`
	Reason string `json:"reason"`
	By     string `json:"by,omitempty"`
}
