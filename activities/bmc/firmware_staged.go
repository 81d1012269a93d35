package bmc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/firmware"
)

// FinishStagedFirmwareInput finishes the host firmware ApplyFirmware left
// staged (LeaveStaged) on one server: one host start installs it all.
type FinishStagedFirmwareInput struct {
	Endpoint
	// Staged are the components, in the order they were applied.
	Staged []StagedFirmware
	// TaskLimit bounds the installs the host start runs. Zero: 30 min.
	TaskLimit time.Duration
}

// StagedFirmware is one component ApplyFirmware left staged: its From and
// Task as that result gave them.
type StagedFirmware struct {
	Component firmware.Component
	From      string `json:",omitempty"`
	// Task is the update's task monitor ("" none): an install that fails
	// during POST fails there, with the BMC's message.
	Task string `json:",omitempty"`
}

// FinishStagedFirmwareResult is a result per staged component, in order,
// each proven by its source.
type FinishStagedFirmwareResult struct {
	Results []ApplyFirmwareResult `json:"results"`
	// HostStarted: the activity reset (or powered on) the host. False when
	// every component already showed its minimum: a host start before it
	// (another component's) installed them.
	HostStarted bool `json:"hostStarted,omitempty"`
}

// FinishStagedFirmware starts the host once for all the staged components
// of a server — recorded before the reset, as every reset is (startHostOnce),
// so a resumed attempt never resets twice — then waits until each
// component's source shows its minimum, judged as ApplyFirmware judges
// (firmware.JudgeComponent), within TaskLimit. Failures are typed and name
// the component: FirmwareTaskException (its task failed during POST),
// FirmwareUnchanged (its source still shows the old version at the limit).
func (a *Activities) FinishStagedFirmware(ctx context.Context, in FinishStagedFirmwareInput) (FinishStagedFirmwareResult, error) {
	return perform(ctx, a, in.Endpoint, func(r *run) (FinishStagedFirmwareResult, error) { return r.finishStaged(in) })
}

func (r *run) finishStaged(in FinishStagedFirmwareInput) (FinishStagedFirmwareResult, error) {
	var out FinishStagedFirmwareResult
	in.TaskLimit = orDefault(in.TaskLimit, 30*time.Minute)
	if p, ok := r.resumed(); ok {
		r.progress = p
	}
	names := stagedNames(in.Staged)
	if !r.progress.FwHostStarted {
		fw, err := r.firmwareServer()
		if err != nil {
			return out, err
		}
		rows, _ := judgeStaged(in.Staged, fw)
		wait, err := r.awaitsReset(in.Staged, rows)
		if err != nil {
			return out, err
		}
		if wait {
			if err := r.startHostOnce(names); err != nil {
				return out, err
			}
		}
	}
	out.HostStarted = r.progress.FwHostStarted
	rows, err := r.awaitStaged(in.Staged, names, in.TaskLimit)
	if err != nil {
		return out, err
	}
	how := "installed at one host start for " + names
	if !out.HostStarted {
		how = "installed at an earlier host start"
	}
	for i, s := range in.Staged {
		c := s.Component
		out.Results = append(out.Results, ApplyFirmwareResult{Component: c.Name, From: s.From, To: rows[i][0].Current,
			Applied: true, Staged: true, HostStarted: out.HostStarted, Task: s.Task,
			Detail: fmt.Sprintf("%s %s → %s (%s), %s", c.Name, s.From, rows[i][0].Current, rows[i][0].Source, how)})
	}
	return out, nil
}

// awaitStaged waits until every staged component's source shows its
// minimum, one read of the firmware per poll; each task, while the BMC
// shows it, is watched for a failed install. The heartbeat names those
// still waiting.
func (r *run) awaitStaged(staged []StagedFirmware, names string, limit time.Duration) ([][]firmware.Row, error) {
	var rows [][]firmware.Row
	err := r.waitUntil("wait for "+names+" to show their minimums", limit, func() (bool, error) {
		for _, s := range staged {
			if err := r.installFailed(s.Component, s.Task); err != nil {
				return false, err
			}
		}
		fw, err := r.c.Firmware(r.ctx)
		if err != nil {
			return false, nil // a BMC busy with the installs: read again
		}
		var all bool
		rows, all = judgeStaged(staged, fw)
		r.progress.FwState = waitingFor(staged, rows)
		return all, nil
	})
	if errors.Is(err, errWaitLimit) {
		var still, first []string
		for i, s := range staged {
			var shown []firmware.Row
			if rows != nil {
				shown = rows[i]
			}
			if firmware.Worst(shown) == firmware.AtBaseline && shown != nil {
				continue
			}
			first = append(first, s.Component.Name)
			still = append(still, fmt.Sprintf("%s still shows %s (the baseline requires %s)", s.Component.Name, currentOf(shown), s.Component.Minimum))
		}
		return rows, &stepError{"prove " + strings.Join(first, ", "), &failure{kindFirmwareUnchanged,
			fmt.Sprintf("%s %s after the update and one host start for %s", strings.Join(still, ", "), limit, names)}}
	}
	return rows, err
}

// awaitsReset: some component below its minimum still waits for a host
// reset — its task says staged, or done (installed, read at the next
// start), or there is none to read. One whose task says it installs now
// (a host start before this one, another component's, began its POST) is
// waited for: a reset must not cut an install short.
func (r *run) awaitsReset(staged []StagedFirmware, rows [][]firmware.Row) (bool, error) {
	for i, s := range staged {
		if firmware.Worst(rows[i]) == firmware.AtBaseline {
			continue
		}
		if s.Task == "" {
			return true, nil
		}
		t, ok, err := r.task("read the task of "+s.Component.Name, s.Task)
		if err != nil {
			return false, err
		}
		if m := meaningOf(t); !ok || m == taskStaged || m == taskDone {
			return true, nil
		}
	}
	return false, nil
}

// judgeStaged judges each staged component on one read; all: every one
// is at its minimum.
func judgeStaged(staged []StagedFirmware, fw firmware.Server) (rows [][]firmware.Row, all bool) {
	all = true
	for _, s := range staged {
		r := firmware.JudgeComponent(s.Component, fw)
		rows = append(rows, r)
		all = all && firmware.Worst(r) == firmware.AtBaseline
	}
	return rows, all
}

// waitingFor says, for the heartbeat, which components still wait.
func waitingFor(staged []StagedFirmware, rows [][]firmware.Row) string {
	var w []string
	for i, s := range staged {
		if firmware.Worst(rows[i]) != firmware.AtBaseline {
			w = append(w, fmt.Sprintf("%s at %s, waiting for %s", s.Component.Name, currentOf(rows[i]), s.Component.Minimum))
		}
	}
	return strings.Join(w, "; ")
}

func stagedNames(staged []StagedFirmware) string {
	n := make([]string, len(staged))
	for i, s := range staged {
		n[i] = s.Component.Name
	}
	return strings.Join(n, ", ")
}

// startHostOnce starts the host for firmware (what: the components it is
// for) once. FwHostStarted is set before the reset, and issueReset records
// it with Temporal before it sends the reset, so a resumed attempt never
// resets twice. A start that sent nothing (refused, or failed before the
// reset) clears it: a retry may send it.
func (r *run) startHostOnce(what string) error {
	if r.progress.FwHostStarted {
		return nil
	}
	// ResetIssued left by a power-off before the update says nothing of
	// this reset.
	r.progress.FwHostStarted, r.progress.ResetIssued = true, false
	r.heartbeat("starting the host for " + what)
	err := r.hostStart()
	if err != nil && !r.progress.ResetIssued {
		r.progress.FwHostStarted = false
		r.heartbeat("the host start for " + what + " was not sent")
	}
	return err
}

// hostStart restarts the host, or powers it on when it is off, so host
// firmware installed or staged is read at POST.
func (r *run) hostStart() error {
	s, err := r.settledPower()
	if err != nil {
		return err
	}
	if s.PowerState == "Off" {
		_, err = r.powerOn()
		return err
	}
	rt := "ForceRestart"
	if !supports(s, rt) {
		rt = "GracefulRestart"
	}
	acc, err := r.issueReset(rt, func(now bmcclient.System) bool { return cycleEvidence(s, now, false) != "" })
	if err != nil {
		return err
	}
	_, err = r.waitPowerCycle(s, rt, acc)
	return err
}

// installFailed reads the update's task, when there is one, and returns
// its failure (Exception and the like, with the BMC's message); a task
// that cannot be read says nothing: the version will.
func (r *run) installFailed(c firmware.Component, mon string) error {
	if mon == "" {
		return nil
	}
	if t, err := r.c.Task(r.ctx, mon); err == nil && meaningOf(t) == taskFailed {
		return taskFailure(c, t)
	}
	return nil
}
