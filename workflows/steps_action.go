package workflows

import (
	"fmt"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/kube"
	"go.temporal.io/sdk/workflow"
)

// Steps the BMM actions need on top of steps.go. They take their limits
// from the action (its time limit is enforced by the workflow as a whole;
// an activity's own timeout only guards against a lost worker).

// DefaultEvacuateTimeout bounds a cordon with evacuate (docs/behaviour.md#time-limits:
// an evacuation is given up to 30 minutes).
const DefaultEvacuateTimeout = 30 * time.Minute

// evacuation is what an evacuate did: the drain and VM shutdown proceed
// after their limits, so a timeout is reported, not failed.
type evacuation struct {
	DrainTimedOut bool
	VMsTimedOut   bool
	Stopped       []string
}

// evacuate cordons the node, drains tenant pods and shuts down the VMs
// within limit: two thirds for the drain and the rest for the VMs, the
// 20 + 10 minute split of docs/behaviour.md#time-limits at the default 30 minutes.
func (s *steps) evacuate(limit time.Duration) (evacuation, error) {
	var ev evacuation
	if err := s.cordon(); err != nil {
		return ev, fmt.Errorf("cordon: %w", err)
	}
	drainLimit := limit * 2 / 3
	dr, err := s.drain(drainLimit)
	if err != nil {
		return ev, fmt.Errorf("drain: %w", err)
	}
	vms, err := s.shutdownVMs(limit - drainLimit)
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
func (s *steps) reimage(verb, imageURL, version string, limit time.Duration, force bool) error {
	var r bmc.ReimageResult
	return workflow.ExecuteActivity(s.long(limit, fmt.Sprintf("%s %s to %s", verb, s.t.BMM, version)), ba.Reimage,
		bmc.ReimageInput{Endpoint: s.t.Endpoint, ImageURL: imageURL, Version: version, Force: force}).Get(s.ctx, &r)
}

// waitReady waits until the node is Ready (on version, unless "") for at
// most limit; the status tells whether a read-only root filesystem is gone
// too.
func (s *steps) waitReady(version string, limit time.Duration) (kube.NodeStatus, error) {
	var ns kube.NodeStatus
	err := workflow.ExecuteActivity(s.long(limit, "Wait for "+s.t.Node+" Ready"), ka.WaitNodeReady,
		kube.WaitReadyInput{Node: s.t.Node, Version: version, VersionFrom: s.t.VersionFrom, Timeout: limit}).Get(s.ctx, &ns)
	return ns, err
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
