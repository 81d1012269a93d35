package remediation

import (
	"go.temporal.io/sdk/workflow"
)

// The failover's gates: each change to the commands
// KCPFailoverWorkflow issues is gated by a change ID of versions.go (these
// five behind a named function), so histories recorded before
// it replay (workflows/testdata/histories).

// resumesFailover: a failover started again for a server an interrupted
// run already worked on finishes that run (version 1) instead of planning
// afresh, which would promote a second spare or refuse.
func resumesFailover(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeFailoverResumesInterrupted, workflow.DefaultVersion, 1) == 1
}

// promoteGated reports whether the live gate is on for this failover's
// promotion (version 1): a spare with a read-only root filesystem is
// reprovisioned like a NotReady one, and the promotion is checked first.
func promoteGated(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeFailoverPromoteGate, workflow.DefaultVersion, 1) == 1
}

// handsOverMember: the failover moves the etcd membership (version 1),
// where the site exposes etcd.
func handsOverMember(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeFailoverHandsOverMember, workflow.DefaultVersion, 1) == 1
}

// fallsBack: a failover whose spare cannot be provisioned promotes the
// next healthy management server instead and sends the spare to the
// management ladder (version 1, docs/control-plane.md); before, the spare
// was marked Unhealthy and the site stayed short of a KCP.
func fallsBack(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeFailoverFallsBack, workflow.DefaultVersion, 1) == 1
}

// standsInOnOneRack: on a site whose table keeps no spare (one rack), a
// failed KCP is replaced by a healthy management server when there is one
// (version 1); before, the control plane ran one short until a Replace.
func standsInOnOneRack(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeFailoverOneRackStandIn, workflow.DefaultVersion, 1) == 1
}
