package invariants

import (
	"fmt"
	"time"
)

// Rules, as Violation.Rule names them.
const (
	RuleControlPlaneOneAtATime   = "control-plane-one-at-a-time"
	RuleControlPlaneCount        = "control-plane-count"
	RuleRackOverlap              = "rack-overlap"
	RuleRackOrder                = "rack-order"
	RuleThreshold                = "threshold"
	RulePauseAfterRack           = "pause-after-rack"
	RuleSystemic                 = "systemic-failure"
	RuleStormGuard               = "storm-guard"
	RuleLadderStepOnce           = "ladder-step-once"
	RuleEtcdQuorum               = "etcd-quorum"
	RuleControlPlaneHealthyFirst = "control-plane-healthy-first"
	RuleEtcdMemberSet            = "etcd-member-set"
	RuleEtcdMemberStale          = "etcd-member-stale"
	RulePlacementTable           = "placement-table"
	RuleCapacityPause            = "capacity-pause"
)

// Violation is one broken rule, at the event (or remediation start) that
// broke it.
type Violation struct {
	Rule   string    `json:"rule"`
	Time   time.Time `json:"time"`
	BMM    string    `json:"bmm,omitempty"`
	Detail string    `json:"detail"`
}

func (v Violation) String() string {
	return fmt.Sprintf("%s %s %s: %s", v.Time.UTC().Format(time.RFC3339Nano), v.Rule, v.BMM, v.Detail)
}
