package kernel

import (
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/internal/firmware"
	"go.temporal.io/sdk/workflow"
)

// applyStagedOnce is ApplyFirmware behind ChangeFirmwareOneReset: host
// components are applied with LeaveStaged, so an update the BMC stages
// until a host reset waits there; before the first BMC component (its
// update reboots the BMC, and the tasks that watch the installs go with
// it), or at the end, FinishStagedFirmware starts the host once for all of them and
// proves each. The results keep the components' order; a staged one is
// replaced by its proof. On a failure, what was done is returned with it,
// staged components not yet proven saying so.
func (s *Steps) applyStagedOnce(comps []firmware.Component, l Limit) ([]bmc.ApplyFirmwareResult, error) {
	start := workflow.Now(s.Ctx)
	var done []bmc.ApplyFirmwareResult
	var staged []int // indexes in done and comps
	for i, c := range comps {
		if c.Kind == firmware.KindBMC && len(staged) > 0 {
			if err := s.finishStaged(comps, done, staged, l, start); err != nil {
				return done, err
			}
			staged = nil
		}
		left := l.Left(s.Ctx, start)
		task, away := firmwareBounds(left)
		in := bmc.ApplyFirmwareInput{Endpoint: s.T.Endpoint, Component: c, TaskLimit: task, AwayLimit: away,
			LeaveStaged: c.Kind != firmware.KindBMC}
		var r bmc.ApplyFirmwareResult
		err := s.run(left, fmt.Sprintf("Apply firmware %s %s on %s", c.Name, c.Minimum, s.T.BMM), &r, ba.ApplyFirmware, in)
		if err != nil {
			return done, overLimit(err, fmt.Sprintf("firmware %s of %s did not reach %s", c.Name, s.T.BMM, c.Minimum), l)
		}
		done = append(done, r)
		if r.Staged {
			staged = append(staged, i)
		}
	}
	if len(staged) > 0 {
		if err := s.finishStaged(comps, done, staged, l, start); err != nil {
			return done, err
		}
	}
	return done, nil
}

// finishStaged runs FinishStagedFirmware for the components staged (their
// indexes) and puts each proof in done in place of its staged result.
func (s *Steps) finishStaged(comps []firmware.Component, done []bmc.ApplyFirmwareResult, staged []int, l Limit, start time.Time) error {
	left := l.Left(s.Ctx, start)
	task, _ := firmwareBounds(left)
	in := bmc.FinishStagedFirmwareInput{Endpoint: s.T.Endpoint, TaskLimit: task}
	names := make([]string, len(staged))
	for j, i := range staged {
		in.Staged = append(in.Staged, bmc.StagedFirmware{Component: comps[i], From: done[i].From, Task: done[i].Task})
		names[j] = comps[i].Name
	}
	var r bmc.FinishStagedFirmwareResult
	what := strings.Join(names, ", ")
	err := s.run(left, fmt.Sprintf("Start the host once for staged firmware %s on %s", what, s.T.BMM), &r, ba.FinishStagedFirmware, in)
	if err != nil {
		return overLimit(err, fmt.Sprintf("staged firmware %s of %s did not reach the baseline", what, s.T.BMM), l)
	}
	for j, i := range staged {
		if j < len(r.Results) {
			done[i] = r.Results[j]
		}
	}
	return nil
}

// firmwareBounds are an activity's own task and away bounds within what is
// left of the step: a tenth before it, so a stuck task fails typed, naming
// the component, rather than by the step's clock.
func firmwareBounds(left Limit) (task, away time.Duration) {
	own := max(left.D-left.D/10, time.Second)
	return min(FirmwareTaskLimit, own), min(FirmwareAwayLimit, own)
}
