// Package cpgate decides whether a control-plane disruption may begin, from
// a fresh observation of the site rather than the ledger's memory (issue
// 14). It is pure: workflows observe (activities kube.ObserveControlPlane
// and etcd.ObserveEtcd), convert, and ask Decide; the answer names the
// server that stands in the way, what was observed and when.
//
// The members are lease.ControlPlane: the active KCPs. The spare is not a
// member (docs/behaviour.md#placement) except while it is being promoted, when it must be
// fit to serve.
package cpgate

import (
	"time"

	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
)

// DefaultMaxAge is how old an observation may be: long enough for one
// observe-and-ask round trip through Temporal, short enough that a node
// going NotReady meanwhile is the exception, and the gate runs again just
// before the first disruptive call.
const DefaultMaxAge = lease.MaxObservationAge

// Input is one question to the gate.
type Input struct {
	// Target is the BMM about to be disrupted.
	Target    string
	Operation lease.Operation
	// Promote: Target is the spare being promoted to an active KCP, and
	// Replacing the member it takes over from (excluded from the checks:
	// it is down, that is why it is replaced).
	Promote   bool
	Replacing string
	// Removes: the target leaves the member set for good (an upgrade's
	// retire), so quorum is counted over the members that stay.
	Removes bool
	// Cluster is the ledger: roles, node names, Unhealthy marks.
	Cluster  model.Cluster
	Observed Observation
	Now      time.Time
	MaxAge   time.Duration // 0: DefaultMaxAge
}

// Observation is what the site showed.
type Observation struct {
	Nodes []Node
	// Etcd is nil when the site's inventory has no controlPlane.etcd.
	Etcd *Etcd
}

// Node is one control-plane member's node as observed.
type Node struct {
	BMM    string
	Node   string
	Exists bool
	// Ready is the Ready condition's status: True, False, Unknown, "".
	Ready          string
	ReadySince     time.Time
	Reason         string
	ReadOnlyRootFS bool
	ReadOnlySince  time.Time
	SeenAt         time.Time
}

// Etcd is the etcd cluster as observed; members are named after their
// KCP's node.
type Etcd struct {
	SeenAt  time.Time
	Members []EtcdMember
	Alarms  []string
	Err     string // the cluster could not be read at all
}

// EtcdMember is one etcd member as observed.
type EtcdMember struct {
	Name    string
	Healthy bool
	Leader  bool
	Learner bool
	Err     string
}

// Outcome is the gate's answer.
type Outcome string

const (
	Allow  Outcome = "allow"
	Refuse Outcome = "refuse"
	// MoveLeader: the target leads etcd; move leadership to MoveLeaderTo,
	// observe again and ask again before disrupting it.
	MoveLeader Outcome = "move-leader"
)

// Decision is the gate's answer with its reason. Server names the BMM
// whose observed condition decided a refusal (empty when the reason is the
// observation itself, e.g. stale).
type Decision struct {
	Outcome      Outcome `json:"outcome"`
	Reason       string  `json:"reason"`
	Server       string  `json:"server,omitempty"`
	MoveLeaderTo string  `json:"moveLeaderTo,omitempty"`
}

// Allowed reports Outcome == Allow.
func (d Decision) Allowed() bool { return d.Outcome == Allow }

// Error is the decision as an error, nil when allowed.
func (d Decision) Err() error {
	if d.Allowed() {
		return nil
	}
	return refusal(d)
}

type refusal Decision

func (r refusal) Error() string { return r.Reason }
