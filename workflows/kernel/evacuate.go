package kernel

import (
	"errors"

	"github.com/rackroll/rackroll/internal/api"
)

// Every path that disrupts a server in service takes its work off it
// first, the same way: cordon, drain tenant pods, shut the VMs down —
// the drain and VM shutdown proceed after their limits, so a timeout is
// reported, not failed — and, where the disruption that follows takes a
// control-plane member down, the live gate's second look just before it
// (the evacuation may have taken minutes).

// Evacuation is what an evacuate did.
type Evacuation struct {
	DrainTimedOut bool
	VMsTimedOut   bool
	Stopped       []string
}

// StepError is an evacuation step that failed: Step is "cordon", "drain"
// or "VM shutdown". Its message is "<step>: <error>".
type StepError struct {
	Step string
	Err  error
}

func (e *StepError) Error() string { return e.Step + ": " + e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }

// Evacuate cordons the node, drains tenant pods and shuts down the VMs,
// each within its limit. What it did is returned even when a later step
// failed (a drain that timed out, then a VM shutdown that failed).
func (s *Steps) Evacuate(drainLimit, vmLimit Limit) (Evacuation, error) {
	var ev Evacuation
	if err := s.Cordon(); err != nil {
		return ev, &StepError{"cordon", err}
	}
	dr, err := s.Drain(drainLimit)
	if err != nil {
		return ev, &StepError{"drain", err}
	}
	ev.DrainTimedOut = dr.TimedOut
	vms, err := s.ShutdownVMs(vmLimit)
	if err != nil {
		return ev, &StepError{"VM shutdown", err}
	}
	ev.VMsTimedOut, ev.Stopped = vms.TimedOut, vms.Stopped
	return ev, nil
}

// EvacuateThenGate evacuates, then asks h's live gate again (a refusal is
// a GateRefusal, unwrapped): what an upgrade's server does before its
// firmware or its reimage.
func (s *Steps) EvacuateThenGate(h Held, drainLimit, vmLimit Limit) (Evacuation, error) {
	ev, err := s.Evacuate(drainLimit, vmLimit)
	if err != nil {
		return ev, err
	}
	return ev, h.GateAgain(s.Ctx)
}

// Evacuated puts what ev did into res and, when err is not nil, what went
// wrong: a failed step fails the server (Failed); a gate refusal leaves it
// as it is, Gated, the reason after before ("before the reimage: "), so
// that the upgrade pauses and runs the step again. ok is err == nil.
func (s *Steps) Evacuated(res api.ServerResult, ev Evacuation, err error, before string) (api.ServerResult, bool) {
	res.DrainTimedOut, res.VMsTimedOut = ev.DrainTimedOut, ev.VMsTimedOut
	var step *StepError
	switch {
	case err == nil:
		return res, true
	case errors.As(err, &step):
		return s.Failed(res, step.Step, step.Err), false
	}
	res.Error = before + err.Error()
	res.Gated, res.GateReason = GateReason(err, before)
	return res, false
}
