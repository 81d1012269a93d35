package wftest

import (
	"context"
	"regexp"
	"slices"
	"strings"

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
		staged := c.Kind != firmware.KindBMC && c.Apply.ApplyTime == firmware.ApplyOnReset
		f.Event(events.FirmwareUpdate, in.BMM, map[string]any{"kind": c.Kind, "version": c.Minimum, "from": res.From, "staged": staged})
		if staged && in.LeaveStaged {
			// The install, and a failure of it, waits for the host start.
			f.fwStaged[in.BMM] = append(f.fwStaged[in.BMM], c.Name)
			res.Staged, res.Task = true, "/redfish/v1/TaskService/Tasks/"+c.Name
			return res, nil
		}
		if err := f.installFirmware(in.BMM, c, res.From); err != nil {
			return res, err
		}
		res.To, res.HostStarted = c.Minimum, c.Kind != firmware.KindBMC
		if res.HostStarted {
			f.hostStart(in.BMM)
		}
		return res, nil
	})
	f.answer(env, ba.FinishStagedFirmware, "FinishStagedFirmware", f.finishStaged)
}

// finishStaged installs the components ApplyFirmware left staged, with
// one host start; one that was not staged stays as it is, and fails.
func (f *FakeSite) finishStaged(_ context.Context, in bmc.FinishStagedFirmwareInput) (bmc.FinishStagedFirmwareResult, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.StagedInputs = append(f.StagedInputs, in)
	names := make([]string, len(in.Staged))
	for i, st := range in.Staged {
		names[i] = st.Component.Name
	}
	var out bmc.FinishStagedFirmwareResult
	if err := f.step("FinishStagedFirmware", in.BMM+" "+strings.Join(names, ", ")); err != nil {
		return out, err
	}
	f.hostStart(in.BMM)
	out.HostStarted = true
	for _, st := range in.Staged {
		c := st.Component
		if !slices.Contains(f.fwStaged[in.BMM], c.Name) {
			return out, temporal.NewNonRetryableApplicationError(c.Name+" still shows "+st.From+": nothing was staged", bmc.ErrTypeFirmwareUnchanged, nil)
		}
		if err := f.installFirmware(in.BMM, c, st.From); err != nil {
			return out, err
		}
		out.Results = append(out.Results, bmc.ApplyFirmwareResult{Component: c.Name, From: st.From, To: c.Minimum,
			Applied: true, Staged: true, HostStarted: true, Task: st.Task})
	}
	f.fwStaged[in.BMM] = nil
	return out, nil
}

// installFirmware brings c's members on bmm to its minimum, or fails as
// FirmwareFails says (mu held).
func (f *FakeSite) installFirmware(bmm string, c firmware.Component, from string) error {
	if msg := f.FirmwareFails[bmm]; msg != "" {
		f.Event(events.FirmwareFailed, bmm, map[string]any{"kind": c.Kind, "version": c.Minimum, "reason": msg})
		return temporal.NewNonRetryableApplicationError(c.Name+": "+msg, bmc.ErrTypeFirmwareException, nil)
	}
	s := f.Firmware[bmm]
	re := regexp.MustCompile(c.Inventory)
	for i, it := range s.Items {
		if it.Installed() && (re.MatchString(it.ID) || re.MatchString(it.Name)) {
			s.Items[i].Version = c.Minimum
		}
	}
	f.logf("firmware %s %s %s", bmm, c.Name, c.Minimum)
	f.Event(events.FirmwareDone, bmm, map[string]any{"kind": c.Kind, "from": from, "to": c.Minimum})
	return nil
}

// hostStart is a host start for firmware: a new boot of its OS (mu held).
func (f *FakeSite) hostStart(bmm string) {
	f.FirmwareHostStarts[bmm]++
	if n := f.Nodes[bmm]; n != nil {
		n.boot++
	}
}
