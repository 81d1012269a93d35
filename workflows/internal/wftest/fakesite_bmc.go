package wftest

import (
	"cmp"
	"context"
	"reflect"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// The fake site's BMCs: power, reboots and reimages that heal a node or
// fail as the test said, written to the event log as the lab would.

func (f *FakeSite) mockBMC(env *testsuite.TestWorkflowEnvironment) {
	f.answer(env, ba.Restart, "Restart", func(_ context.Context, ep bmc.Endpoint) (bmc.PowerResult, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		if err := f.step("Restart", ep.BMM); err != nil {
			return bmc.PowerResult{}, err
		}
		f.logf("restart %s", ep.BMM)
		if f.RebootFails[ep.BMM] {
			f.Nodes[ep.BMM].Ready = model.ReadyUnknown
			f.Event(events.PowerOff, ep.BMM, map[string]any{"reason": "power-on-fails"})
			f.Sync(ep.BMM)
			return bmc.PowerResult{}, temporal.NewNonRetryableApplicationError("The system did not power on", bmc.ErrTypePowerFailed, nil)
		}
		if f.ResetIgnored[ep.BMM] {
			return bmc.PowerResult{ResetType: "ForceRestart", Answer: "204", Unconfirmed: true,
				Detail: "accepted ForceRestart (204) but showed no change within 1m0s: PowerState On"}, nil
		}
		f.booted(ep.BMM)
		return bmc.PowerResult{ResetType: "ForceRestart", Answer: "204", Evidence: "PowerState PoweringOff"}, nil
	})
	f.answer(env, ba.PowerOn, "PowerOn", func(_ context.Context, ep bmc.Endpoint) (bmc.PowerResult, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		if err := f.step("PowerOn", ep.BMM); err != nil {
			return bmc.PowerResult{}, err
		}
		if f.Power[ep.BMM] == model.PowerOn {
			return bmc.PowerResult{}, nil // already on: nothing sent
		}
		f.booted(ep.BMM)
		return bmc.PowerResult{ResetType: "On", Answer: "204", Evidence: "PowerState Off → On"}, nil
	})
	f.answer(env, ba.PowerOff, "PowerOff", func(_ context.Context, in bmc.PowerOffInput) error {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		what := "PowerOff"
		if in.SkipShutdown {
			what = "ForceOff"
		}
		if err := f.step(what, in.BMM); err != nil {
			return err
		}
		f.logf("power-off %s", in.BMM)
		f.Power[in.BMM] = model.PowerOff
		f.Nodes[in.BMM].Ready = model.ReadyUnknown
		f.Event(events.PowerOff, in.BMM, nil)
		f.Sync(in.BMM)
		return nil
	})
	f.answer(env, ba.ReadPower, "ReadPower", func(_ context.Context, ep bmc.Endpoint) (bmc.PowerStatus, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		return bmc.PowerStatus{PowerState: cmp.Or(f.Power[ep.BMM], model.PowerOn), Health: "OK"}, nil
	})
	f.answer(env, ba.Reimage, "Reimage", func(_ context.Context, in bmc.ReimageInput) (bmc.ReimageResult, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		defer f.reimageEnded(in.BMM)
		if err := f.step("Reimage", in.BMM); err != nil {
			// Refused: nothing written; the log ends the start it showed.
			f.Event(events.ReimageFailed, in.BMM, map[string]any{"version": in.Version})
			return bmc.ReimageResult{}, err
		}
		f.Forced = append(f.Forced, in.Force)
		if f.versioned {
			f.Reimages = append(f.Reimages, in.BMM+"@"+in.Version)
		} else {
			f.Reimages = append(f.Reimages, in.BMM)
		}
		f.logf("reimage %s %s", in.BMM, in.Version)
		v := map[string]any{"version": in.Version}
		if msg := f.Failing[in.BMM]; msg != "" {
			f.Nodes[in.BMM].Ready = model.ReadyUnknown // no bootable OS
			f.Event(events.ReimageFailed, in.BMM, v)
			f.Sync(in.BMM)
			return bmc.ReimageResult{}, temporal.NewNonRetryableApplicationError(msg, bmc.ErrTypeReimageFailed, nil)
		}
		n := f.Nodes[in.BMM]
		n.since = n.boot
		switch {
		case f.NoBoot[in.BMM]:
			// The reset took effect, the machine never boots again: its
			// node stays as it was, on the old boot.
			return bmc.ReimageResult{Version: in.Version, Reimaged: true, LastState: "On"}, nil
		case f.Lost[in.BMM]:
			n.Ready = model.ReadyUnknown
			f.Sync(in.BMM)
			return bmc.ReimageResult{Version: in.Version, Reimaged: true, LastState: "On"}, nil
		}
		n.Version = in.Version
		f.Event(events.ReimageDone, in.BMM, v)
		f.booted(in.BMM)
		return bmc.ReimageResult{Version: in.Version, PreviousVersion: in.Version, Reimaged: true, LastState: "On"}, nil
	})
	f.answer(env, ba.EjectMedia, "EjectMedia", func(_ context.Context, in bmc.EjectInput) error {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		if err := f.step("EjectMedia", in.BMM); err != nil {
			return err
		}
		n := f.Nodes[in.BMM]
		back := "not-back"
		if f.Status(in.BMM).IsReady() && n.since >= 0 && n.boot > n.since {
			back = "back"
		}
		f.Ejects = append(f.Ejects, in.BMM+" "+back)
		n.since = -1
		f.Event(events.MediaEject, in.BMM, map[string]any{"image": in.ImageURL})
		return nil
	})
	// The watch runs until cancelled (far on the workflow clock), or fails
	// with the hint the test set after delay["WatchReimage"].
	f.answerAfter(env, ba.WatchReimage, f.watchAfter, func(_ context.Context, in bmc.WatchInput) error {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		if msg := f.WatchFails[in.BMM]; msg != "" {
			return temporal.NewNonRetryableApplicationError(msg, "ReimageFailed", nil)
		}
		return nil
	})
}

// watchAfter is when a watch ends: a failing one after the test's delay,
// the others never within a test.
func (f *FakeSite) watchAfter() time.Duration {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	if len(f.WatchFails) > 0 {
		return cmp.Or(f.Delay["WatchReimage"], time.Minute)
	}
	return max(cmp.Or(f.WatchHold, 10000*time.Hour), 0)
}

// ActivityStarted logs resets and reimages as they begin, and counts the
// reimages in flight.
func (f *FakeSite) ActivityStarted(info *activity.Info, _ context.Context, args converter.EncodedValues) {
	switch info.ActivityType.Name {
	case "Restart":
		var ep bmc.Endpoint
		if args.Get(&ep) == nil {
			f.Mu.Lock()
			f.Event(events.Reset, ep.BMM, map[string]any{"resetType": "ForceRestart"})
			f.Mu.Unlock()
		}
	case "Reimage":
		var in bmc.ReimageInput
		if args.Get(&in) == nil {
			f.Mu.Lock()
			f.reimageStarted(in.BMM)
			f.Event(events.ReimageStart, in.BMM, map[string]any{"version": in.Version})
			f.Mu.Unlock()
		}
	}
}

// unreached ends, in the log, a reimage whose start was logged but whose
// call a cut kept from the BMC: it failed, nothing was written.
func (f *FakeSite) unreached(in []reflect.Value) {
	if len(in) < 2 {
		return
	}
	if ri, ok := in[1].Interface().(bmc.ReimageInput); ok {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		f.reimageEnded(ri.BMM)
		f.Event(events.ReimageFailed, ri.BMM, map[string]any{"version": ri.Version})
	}
}

// reimageStarted and reimageEnded count the reimages in flight: of the
// control plane, and of compute by rack (management groups span racks by
// design; compute racks go one at a time) (mu held).
func (f *FakeSite) reimageStarted(bmm string) {
	switch b := f.Bmm(bmm); {
	case isControlPlane(b):
		f.kcpOut++
		f.MaxKCP = max(f.MaxKCP, f.kcpOut)
	case b.HasRole(model.RoleCompute):
		if f.inFlight[b.Rack]++; len(f.inFlight) > 1 {
			f.Overlap = true
		}
	}
}

func (f *FakeSite) reimageEnded(bmm string) {
	switch b := f.Bmm(bmm); {
	case isControlPlane(b):
		f.kcpOut--
	case b.HasRole(model.RoleCompute):
		if f.inFlight[b.Rack]--; f.inFlight[b.Rack] == 0 {
			delete(f.inFlight, b.Rack)
		}
	}
}

func isControlPlane(b *model.BMM) bool {
	return b.HasRole(model.RoleKCP) || b.HasRole(model.RoleKCPSpare)
}

// booted is a machine after a boot: on, its node exists and, unless its
// conditions are sticky, is Ready with a writable root filesystem, the
// fault over. The log shows the node again, ending the disruption the
// reset or reimage began (mu held).
func (f *FakeSite) booted(bmm string) {
	f.Power[bmm] = model.PowerOn
	n := f.Nodes[bmm]
	n.Exists = true
	n.boot++
	if !f.Sticky[bmm] {
		if n.Rofs {
			// The log says the fault is over, as the lab's would on clearing it.
			f.Event(events.Fault, bmm, map[string]any{"kind": string(faults.ReadOnlyRootFS), "on": false})
		}
		n.Ready, n.Rofs = model.ReadyTrue, false
		delete(f.RebootFails, bmm)
		delete(f.Failing, bmm)
		if f.OnHeal != nil {
			f.OnHeal(bmm)
		}
	}
	f.shown[bmm] = ""
	f.Sync(bmm)
}

// Event hands an event to emit, if set (mu held).
func (f *FakeSite) Event(kind, bmm string, detail map[string]any) {
	if f.Emit != nil {
		f.Emit(kind, bmm, f.Bmm(bmm).Rack, detail)
	}
}

// Sync logs a change of the node's readiness, as the lab's kubelet
// simulator does (mu held).
func (f *FakeSite) Sync(bmm string) {
	n := f.Nodes[bmm]
	kind := events.NodeReady
	switch {
	case !n.Exists:
		kind = events.NodeDeleted
	case n.Ready == model.ReadyUnknown:
		kind = events.NodeUnknown
	case n.Ready != model.ReadyTrue:
		kind = events.NodeNotReady
	}
	if f.shown[bmm] != kind {
		f.shown[bmm] = kind
		f.Event(kind, bmm, nil)
	}
}
