package kernel

import (
	"fmt"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/kube"
	"go.temporal.io/sdk/workflow"
)

// Steps the BMM actions need on top of steps.go. They take their limits
// from the action (its time limit is enforced by the workflow as a whole;
// an activity's own timeout only guards against a lost worker).

// reimage installs version, bounded by limit (the upgrade's ReimageTimeout,
// the action's limit or reprovisionTimeout). force reinstalls even when the
// machine runs version already: a reimage or replace restores a known-good
// OS in place, and a remediation's reprovision repairs it — "already on
// that version" is no reason to skip.
func (s *Steps) reimage(verb, imageURL, version string, l Limit, force bool) error {
	var r bmc.ReimageResult
	return s.run(l, fmt.Sprintf("%s %s to %s", verb, s.T.BMM, version), &r, ba.Reimage,
		bmc.ReimageInput{Endpoint: s.T.Endpoint, ImageURL: imageURL, Version: version, Force: force})
}

// waitReady waits until the node is Ready (on version, unless "") for at
// most limit; the status tells whether a read-only root filesystem is gone
// too.
func (s *Steps) waitReady(version string, l Limit) (kube.NodeStatus, error) {
	var ns kube.NodeStatus
	err := s.run(l, "Wait for "+s.T.Node+" Ready", &ns, ka.WaitNodeReady,
		kube.WaitReadyInput{Node: s.T.Node, Version: version, VersionFrom: s.T.VersionFrom, Timeout: l.D})
	return ns, overLimit(err, "node "+s.T.Node+" was not Ready", l)
}

func (s *Steps) readPower() (bmc.PowerStatus, error) {
	var p bmc.PowerStatus
	err := workflow.ExecuteActivity(s.short("Read the power state of "+s.T.BMM), ba.ReadPower, s.T.Endpoint).Get(s.Ctx, &p)
	return p, err
}

// StartVMs starts the VMs on the node again.
func (s *Steps) StartVMs() (kube.StartResult, error) {
	var r kube.StartResult
	err := workflow.ExecuteActivity(s.short("Start VMs on "+s.T.Node), ka.StartVMs, s.T.Node).Get(s.Ctx, &r)
	return r, err
}

// CheckPower is a post-check: the BMC must report want.
func (s *Steps) CheckPower(want string) error {
	p, err := s.readPower()
	if err != nil {
		return fmt.Errorf("read power state: %w", err)
	}
	if p.PowerState != want {
		return fmt.Errorf("power state is %s after the action, want %s", p.PowerState, want)
	}
	return nil
}

// CheckReady is a post-check: the node must exist and be Ready now.
func (s *Steps) CheckReady() error {
	ns, err := s.ReadNode()
	if err != nil {
		return fmt.Errorf("read node: %w", err)
	}
	if !ns.IsReady() {
		return fmt.Errorf("%s after the action", ns)
	}
	return nil
}
