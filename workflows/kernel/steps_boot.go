package kernel

import (
	"fmt"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/temporalerr"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// A restart or power-on is over when the node shows a boot other than the
// one read before the reset (docs/evidence.md): a node that was Ready
// before is not "back" until it booted again, and a reset the BMC accepted
// but showed no sign of is settled by the node alone.

// Reboot is a reset sent and the boot it must replace.
type Reboot struct {
	Previous string          // the node's boot ID before the reset; "": any boot counts
	reset    bmc.PowerResult // what the BMC did and showed
}

// BootBefore reads the node's boot ID before a reset ("" for histories
// recorded before changeBootEvidence, or a node that has none).
func (s *Steps) BootBefore() (string, error) {
	if workflow.GetVersion(s.Ctx, changeBootEvidence, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return "", nil
	}
	ns, err := s.ReadNode()
	if err != nil {
		return "", fmt.Errorf("read node %s before the reset: %s", s.T.Node, temporalerr.Message(err))
	}
	return ns.BootID, nil
}

// After is the boot to wait for once res is known: no reset sent (the
// machine was already on) means the current boot counts.
func After(previous string, res bmc.PowerResult) Reboot {
	if res.ResetType == "" {
		previous = ""
	}
	return Reboot{Previous: previous, reset: res}
}

// WaitBack waits within l for the node Ready (on version, unless "") on a
// boot other than rb.previous. When the BMC showed no sign of the reset
// either, the failure says so: what was asked, the answer, what it showed.
func (s *Steps) WaitBack(rb Reboot, version string, l Limit) (kube.NodeStatus, error) {
	var ns kube.NodeStatus
	err := s.run(l, "Wait for "+s.T.Node+" Ready", &ns, ka.WaitNodeReady,
		kube.WaitReadyInput{Node: s.T.Node, Version: version, VersionFrom: s.T.VersionFrom, PreviousBootID: rb.Previous, Timeout: l.D})
	err = overLimit(err, "node "+s.T.Node+" was not Ready", l)
	if err == nil || !rb.reset.Unconfirmed {
		return ns, err
	}
	return ns, resetNotSeen(s.T.BMM, s.T.Node, rb.reset, err)
}

// resetNotSeen is the typed failure of a reset neither the BMC nor the
// node showed: a step timeout stays one, so the action reports it as such.
func resetNotSeen(bmm, node string, res bmc.PowerResult, waitErr error) error {
	typ := bmc.ErrTypeNoEffect
	if IsStepTimeout(waitErr) {
		typ = ErrStepTimedOut
	}
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("BMC of %s %s; node %s did not boot again: %s",
		bmm, res.Detail, node, temporalerr.Message(waitErr)), typ, nil)
}
