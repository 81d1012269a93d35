package wftest

import (
	"context"
	"regexp"
	"slices"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lab/events"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// The fake site's firmware: what each BMC's FirmwareInventory shows
// (Firmware, set by the test), read as it is, and updates that bring a
// component's members to its minimum — or fail typed, as the test said
// (FirmwareFails). A BMM the test gave no inventory has none: reading it
// fails, as a BMC without an UpdateService does.

// FirmwareOf sets what bmm's BMC shows (a copy is kept).
func (f *FakeSite) FirmwareOf(bmm string, s firmware.Server) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	if f.Firmware == nil {
		f.Firmware = map[string]*firmware.Server{}
	}
	s.Items = slices.Clone(s.Items)
	f.Firmware[bmm] = &s
}

// FirmwareNow is what bmm's BMC shows now.
func (f *FakeSite) FirmwareNow(bmm string) firmware.Server {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	s := *f.Firmware[bmm]
	s.Items = slices.Clone(s.Items)
	return s
}

func (f *FakeSite) mockFirmware(env *testsuite.TestWorkflowEnvironment) {
	f.answer(env, ba.ReadFirmware, "ReadFirmware", func(_ context.Context, ep bmc.Endpoint) (firmware.Server, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		if err := f.step("ReadFirmware", ep.BMM); err != nil {
			return firmware.Server{}, err
		}
		s := f.Firmware[ep.BMM]
		if s == nil {
			return firmware.Server{}, temporal.NewNonRetryableApplicationError("the BMC's UpdateService lists no FirmwareInventory", bmc.ErrTypeRejected, nil)
		}
		out := *s
		out.Items = slices.Clone(s.Items)
		return out, nil
	})
	f.answer(env, ba.ApplyFirmware, "ApplyFirmware", func(_ context.Context, in bmc.ApplyFirmwareInput) (bmc.ApplyFirmwareResult, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		c := in.Component
		f.FirmwareInputs = append(f.FirmwareInputs, in)
		if err := f.step("ApplyFirmware", in.BMM+" "+c.Name); err != nil {
			return bmc.ApplyFirmwareResult{}, err
		}
		res := bmc.ApplyFirmwareResult{Component: c.Name}
		s := f.Firmware[in.BMM]
		if s == nil {
			return res, temporal.NewNonRetryableApplicationError("the BMC's UpdateService lists no FirmwareInventory", bmc.ErrTypeRejected, nil)
		}
		rows := firmware.JudgeComponent(c, *s)
		if firmware.Worst(rows) == firmware.AtBaseline {
			res.To = rows[0].Current
			return res, nil
		}
		res.From, res.Applied = rows[0].Current, true
		f.Event(events.FirmwareUpdate, in.BMM, map[string]any{"kind": c.Kind, "version": c.Minimum, "from": res.From})
		if msg := f.FirmwareFails[in.BMM]; msg != "" {
			f.Event(events.FirmwareFailed, in.BMM, map[string]any{"kind": c.Kind, "version": c.Minimum, "reason": msg})
			return res, temporal.NewNonRetryableApplicationError(c.Name+": "+msg, bmc.ErrTypeFirmwareException, nil)
		}
		re := regexp.MustCompile(c.Inventory)
		for i, it := range s.Items {
			if it.Installed() && (re.MatchString(it.ID) || re.MatchString(it.Name)) {
				s.Items[i].Version = c.Minimum
			}
		}
		f.logf("firmware %s %s %s", in.BMM, c.Name, c.Minimum)
		f.Event(events.FirmwareDone, in.BMM, map[string]any{"kind": c.Kind, "from": res.From, "to": c.Minimum})
		res.To, res.HostStarted = c.Minimum, c.Kind != firmware.KindBMC
		if n := f.Nodes[in.BMM]; res.HostStarted && n != nil {
			n.boot++ // the host start is a new boot of its OS
		}
		return res, nil
	})
}
