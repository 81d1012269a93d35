package workflows

import (
	"fmt"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/kube"
	"go.temporal.io/sdk/workflow"
)

// Steps the BMM actions need on top of steps.go. They take their limits
// from the action (its time limit is enforced by the workflow as a whole;
// an activity's own timeout only guards against a lost worker).

// evacuation is what an evacuate did: the drain and VM shutdown proceed
// after their limits, so a timeout is reported, not failed.
type evacuation struct {
	DrainTimedOut bool
	VMsTimedOut   bool
	Stopped       []string
}

// evacuate cordons the node, drains tenant pods and shuts down the VMs,
// each within its limit (evacuateLimits).
func (s *steps) evacuate(drainLimit, vmLimit limit) (evacuation, error) {
	var ev evacuation
	if err := s.cordon(); err != nil {
		return ev, fmt.Errorf("cordon: %w", err)
	}
	dr, err := s.drain(drainLimit)
	if err != nil {
		return ev, fmt.Errorf("drain: %w", err)
	}
	vms, err := s.shutdownVMs(vmLimit)
	if err != nil {
		return ev, fmt.Errorf("VM shutdown: %w", err)
	}
	ev.DrainTimedOut, ev.VMsTimedOut, ev.Stopped = dr.TimedOut, vms.TimedOut, vms.Stopped
	return ev, nil
}

// reimage installs version, bounded by limit (the upgrade's ReimageTimeout,
// the action's limit or reprovisionTimeout). force reinstalls even when the
// machine runs version already: a reimage or replace restores a known-good
// OS in place, and a remediation's reprovision repairs it — "already on
// that version" is no reason to skip.
func (s *steps) reimage(verb, imageURL, version string, l limit, force bool) error {
	var r bmc.ReimageResult
	return s.run(l, fmt.Sprintf("%s %s to %s", verb, s.t.BMM, version), &r, ba.Reimage,
		bmc.ReimageInput{Endpoint: s.t.Endpoint, ImageURL: imageURL, Version: version, Force: force})
}

// waitReady waits until the node is Ready (on version, unless "") for at
// most limit; the status tells whether a read-only root filesystem is gone
// too.
func (s *steps) waitReady(version string, l limit) (kube.NodeStatus, error) {
	var ns kube.NodeStatus
	err := s.run(l, "Wait for "+s.t.Node+" Ready", &ns, ka.WaitNodeReady,
		kube.WaitReadyInput{Node: s.t.Node, Version: version, VersionFrom: s.t.VersionFrom, Timeout: l.d})
	return ns, overLimit(err, "node "+s.t.Node+" was not Ready", l)
}

func (s *steps) readPower() (bmc.PowerStatus, error) {
	var p bmc.PowerStatus
	err := workflow.ExecuteActivity(s.short("Read the power state of "+s.t.BMM), ba.ReadPower, s.t.Endpoint).Get(s.ctx, &p)
	return p, err
}

func (s *steps) startVMs() (kube.StartResult, error) {
	var r kube.StartResult
	err := workflow.ExecuteActivity(s.short("Start VMs on "+s.t.Node), ka.StartVMs, s.t.Node).Get(s.ctx, &r)
	return r, err
}

// checkPower is a post-check: the BMC must report want.
func (s *steps) checkPower(want string) error {
	p, err := s.readPower()
	if err != nil {
		return fmt.Errorf("read power state: %w", err)
	}
	if p.PowerState != want {
		return fmt.Errorf("power state is %s after the action, want %s", p.PowerState, want)
	}
	return nil
}

// checkReady is a post-check: the node must exist and be Ready now.
func (s *steps) checkReady() error {
	ns, err := s.readNode()
	if err != nil {
		return fmt.Errorf("read node: %w", err)
	}
	if !ns.IsReady() {
		return fmt.Errorf("%s after the action", ns)
	}
	return nil
}
