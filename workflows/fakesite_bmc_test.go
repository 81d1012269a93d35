package workflows

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

func (f *fakeSite) mockBMC(env *testsuite.TestWorkflowEnvironment) {
	f.answer(env, ba.Restart, "Restart", func(_ context.Context, ep bmc.Endpoint) (bmc.PowerResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if err := f.step("Restart", ep.BMM); err != nil {
			return bmc.PowerResult{}, err
		}
		f.logf("restart %s", ep.BMM)
		if f.rebootFails[ep.BMM] {
			f.nodes[ep.BMM].ready = model.ReadyUnknown
			f.event(events.PowerOff, ep.BMM, map[string]any{"reason": "power-on-fails"})
			f.sync(ep.BMM)
			return bmc.PowerResult{}, temporal.NewNonRetryableApplicationError("The system did not power on", bmc.ErrTypePowerFailed, nil)
		}
		if f.resetIgnored[ep.BMM] {
			return bmc.PowerResult{ResetType: "ForceRestart", Answer: "204", Unconfirmed: true,
				Detail: "accepted ForceRestart (204) but showed no change within 1m0s: PowerState On"}, nil
		}
		f.booted(ep.BMM)
		return bmc.PowerResult{ResetType: "ForceRestart", Answer: "204", Evidence: "PowerState PoweringOff"}, nil
	})
	f.answer(env, ba.PowerOn, "PowerOn", func(_ context.Context, ep bmc.Endpoint) (bmc.PowerResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if err := f.step("PowerOn", ep.BMM); err != nil {
			return bmc.PowerResult{}, err
		}
		if f.power[ep.BMM] == model.PowerOn {
			return bmc.PowerResult{}, nil // already on: nothing sent
		}
		f.booted(ep.BMM)
		return bmc.PowerResult{ResetType: "On", Answer: "204", Evidence: "PowerState Off → On"}, nil
	})
	f.answer(env, ba.PowerOff, "PowerOff", func(_ context.Context, in bmc.PowerOffInput) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		what := "PowerOff"
		if in.SkipShutdown {
			what = "ForceOff"
		}
		if err := f.step(what, in.BMM); err != nil {
			return err
		}
		f.logf("power-off %s", in.BMM)
		f.power[in.BMM] = model.PowerOff
		f.nodes[in.BMM].ready = model.ReadyUnknown
		f.event(events.PowerOff, in.BMM, nil)
		f.sync(in.BMM)
		return nil
	})
	f.answer(env, ba.ReadPower, "ReadPower", func(_ context.Context, ep bmc.Endpoint) (bmc.PowerStatus, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return bmc.PowerStatus{PowerState: cmp.Or(f.power[ep.BMM], model.PowerOn), Health: "OK"}, nil
	})
	f.answer(env, ba.Reimage, "Reimage", func(_ context.Context, in bmc.ReimageInput) (bmc.ReimageResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		defer f.reimageEnded(in.BMM)
		if err := f.step("Reimage", in.BMM); err != nil {
			// Refused: nothing written; the log ends the start it showed.
			f.event(events.ReimageFailed, in.BMM, map[string]any{"version": in.Version})
			return bmc.ReimageResult{}, err
		}
		f.forced = append(f.forced, in.Force)
		if f.versioned {
			f.reimages = append(f.reimages, in.BMM+"@"+in.Version)
		} else {
			f.reimages = append(f.reimages, in.BMM)
		}
		f.logf("reimage %s %s", in.BMM, in.Version)
		v := map[string]any{"version": in.Version}
		if msg := f.failing[in.BMM]; msg != "" {
			f.nodes[in.BMM].ready = model.ReadyUnknown // no bootable OS
			f.event(events.ReimageFailed, in.BMM, v)
			f.sync(in.BMM)
			return bmc.ReimageResult{}, temporal.NewNonRetryableApplicationError(msg, bmc.ErrTypeReimageFailed, nil)
		}
		n := f.nodes[in.BMM]
		n.since = n.boot
		switch {
		case f.noBoot[in.BMM]:
			// The reset took effect, the machine never boots again: its
			// node stays as it was, on the old boot.
			return bmc.ReimageResult{Version: in.Version, Reimaged: true, LastState: "On"}, nil
		case f.lost[in.BMM]:
			n.ready = model.ReadyUnknown
			f.sync(in.BMM)
			return bmc.ReimageResult{Version: in.Version, Reimaged: true, LastState: "On"}, nil
		}
		n.version = in.Version
		f.event(events.ReimageDone, in.BMM, v)
		f.booted(in.BMM)
		return bmc.ReimageResult{Version: in.Version, PreviousVersion: in.Version, Reimaged: true, LastState: "On"}, nil
	})
	f.answer(env, ba.EjectMedia, "EjectMedia", func(_ context.Context, in bmc.EjectInput) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		if err := f.step("EjectMedia", in.BMM); err != nil {
			return err
		}
		n := f.nodes[in.BMM]
		back := "not-back"
		if f.status(in.BMM).IsReady() && n.since >= 0 && n.boot > n.since {
			back = "back"
		}
		f.ejects = append(f.ejects, in.BMM+" "+back)
		n.since = -1
		f.event(events.MediaEject, in.BMM, map[string]any{"image": in.ImageURL})
		return nil
	})
	// The watch runs until cancelled (far on the workflow clock), or fails
	// with the hint the test set after delay["WatchReimage"].
	f.answerAfter(env, ba.WatchReimage, f.watchAfter, func(_ context.Context, in bmc.WatchInput) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		if msg := f.watchFails[in.BMM]; msg != "" {
			return temporal.NewNonRetryableApplicationError(msg, "ReimageFailed", nil)
		}
		return nil
	})
}

// watchAfter is when a watch ends: a failing one after the test's delay,
// the others never within a test.
func (f *fakeSite) watchAfter() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.watchFails) > 0 {
		return cmp.Or(f.delay["WatchReimage"], time.Minute)
	}
	return max(cmp.Or(f.watchHold, 10000*time.Hour), 0)
}

// activityStarted logs resets and reimages as they begin, and counts the
// reimages in flight.
func (f *fakeSite) activityStarted(info *activity.Info, _ context.Context, args converter.EncodedValues) {
	switch info.ActivityType.Name {
	case "Restart":
		var ep bmc.Endpoint
		if args.Get(&ep) == nil {
			f.mu.Lock()
			f.event(events.Reset, ep.BMM, map[string]any{"resetType": "ForceRestart"})
			f.mu.Unlock()
		}
	case "Reimage":
		var in bmc.ReimageInput
		if args.Get(&in) == nil {
			f.mu.Lock()
			f.reimageStarted(in.BMM)
			f.event(events.ReimageStart, in.BMM, map[string]any{"version": in.Version})
			f.mu.Unlock()
		}
	}
}

// unreached ends, in the log, a reimage whose start was logged but whose
// call a cut kept from the BMC: it failed, nothing was written.
func (f *fakeSite) unreached(in []reflect.Value) {
	if len(in) < 2 {
		return
	}
	if ri, ok := in[1].Interface().(bmc.ReimageInput); ok {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.reimageEnded(ri.BMM)
		f.event(events.ReimageFailed, ri.BMM, map[string]any{"version": ri.Version})
	}
}

// reimageStarted and reimageEnded count the reimages in flight: of the
// control plane, and of compute by rack (management groups span racks by
// design; compute racks go one at a time) (mu held).
func (f *fakeSite) reimageStarted(bmm string) {
	switch b := f.bmm(bmm); {
	case isControlPlane(b):
		f.kcpOut++
		f.maxKCP = max(f.maxKCP, f.kcpOut)
	case b.HasRole(model.RoleCompute):
		if f.inFlight[b.Rack]++; len(f.inFlight) > 1 {
			f.overlap = true
		}
	}
}

func (f *fakeSite) reimageEnded(bmm string) {
	switch b := f.bmm(bmm); {
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
func (f *fakeSite) booted(bmm string) {
	f.power[bmm] = model.PowerOn
	n := f.nodes[bmm]
	n.exists = true
	n.boot++
	if !f.sticky[bmm] {
		if n.rofs {
			// The log says the fault is over, as the lab's would on clearing it.
			f.event(events.Fault, bmm, map[string]any{"kind": string(faults.ReadOnlyRootFS), "on": false})
		}
		n.ready, n.rofs = model.ReadyTrue, false
		delete(f.rebootFails, bmm)
		delete(f.failing, bmm)
		if f.onHeal != nil {
			f.onHeal(bmm)
		}
	}
	f.shown[bmm] = ""
	f.sync(bmm)
}

// event hands an event to emit, if set (mu held).
func (f *fakeSite) event(kind, bmm string, detail map[string]any) {
	if f.emit != nil {
		f.emit(kind, bmm, f.bmm(bmm).Rack, detail)
	}
}

// sync logs a change of the node's readiness, as the lab's kubelet
// simulator does (mu held).
func (f *fakeSite) sync(bmm string) {
	n := f.nodes[bmm]
	kind := events.NodeReady
	switch {
	case !n.exists:
		kind = events.NodeDeleted
	case n.ready == model.ReadyUnknown:
		kind = events.NodeUnknown
	case n.ready != model.ReadyTrue:
		kind = events.NodeNotReady
	}
	if f.shown[bmm] != kind {
		f.shown[bmm] = kind
		f.event(kind, bmm, nil)
	}
}
