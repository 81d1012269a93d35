package bmc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/model"
)

// Reimage starts an install of in.Version from in.ImageURL through the
// virtual CD: eject whatever is in the chosen drive (iDRAC reports stale
// Inserted) → insert the image → one-time boot from the CD → reset
// (ForceRestart, or On when off). It returns once the reset demonstrably
// took effect: the BMC answered 202 with a task monitor (returned as Task),
// or the System showed the power change (or the one-time boot consumed).
//
// It does not judge the install: no BMC says reliably that an OS came up at
// a version (most publish no OperatingSystem/SoftwareImage, BootProgress is
// absent or stuck at POST values), so the caller waits for the node's new
// boot at Version in band, watches for failure hints with WatchReimage, and
// only then ejects with EjectMedia.
//
// Crash-safe: the heartbeat says the reset is about to be sent before it is,
// so a retried attempt whose predecessor sent (or may have sent) it neither
// resets again nor ejects; it returns the same result.
func (a *Activities) Reimage(ctx context.Context, in ReimageInput) (ReimageResult, error) {
	if err := checkImageURL(in.ImageURL); err != nil {
		return ReimageResult{}, temporalError(in.Endpoint, &stepError{"check the input", &failure{kindConfig, err.Error()}})
	}
	if in.Version == "" {
		return ReimageResult{}, temporalError(in.Endpoint, &stepError{"check the input", &failure{kindConfig, "the target Version is empty"}})
	}
	if err := model.CheckBootMode(in.BootMode); err != nil {
		return ReimageResult{}, temporalError(in.Endpoint, &stepError{"check the input", &failure{kindConfig, err.Error()}})
	}
	return perform(ctx, a, in.Endpoint, func(r *run) (ReimageResult, error) { return r.reimage(in) })
}

func (r *run) reimage(in ReimageInput) (ReimageResult, error) {
	image := bmcclient.RedactURL(in.ImageURL) // heartbeats are history: no credentials
	if prev, ok := r.resumed(); ok && prev.ResetIssued && prev.Version == in.Version && (prev.Image == "" || prev.Image == image) {
		return r.resumedReimage(prev)
	}
	res := ReimageResult{Version: in.Version}
	r.progress = progress{Version: in.Version, Image: image}

	s, err := r.settledPower()
	if err != nil {
		return res, err
	}
	target, ok := ChooseBootTarget(s.BootTargets)
	if !ok {
		return res, &stepError{"choose the boot target", &failure{kindRejected, fmt.Sprintf(
			"the System cannot boot once from a virtual CD: BootSourceOverrideTarget allows %v, want Cd or UsbCd", s.BootTargets)}}
	}
	mode, err := chooseBootMode(bootModeOfEndpoint(in.Endpoint), s)
	if err != nil {
		return res, err
	}
	if err := r.mount(in.ImageURL); err != nil {
		return res, err
	}
	if _, err = r.bootOnce(target, mode); err != nil {
		return res, err
	}
	if s, err = r.system("read the System"); err != nil { // the state the reset changes
		return res, err
	}
	rt := "ForceRestart"
	switch {
	case s.PowerState == "Off":
		rt = "On"
	case !supports(s, rt):
		rt = "GracefulRestart"
	}

	// From here on a retry must not reset again (issueReset records it
	// first, with the state the reset's effect is judged against).
	r.progress.Before = markOf(s)
	acc, err := r.issueReset(rt, func(now bmcclient.System) bool { return tookEffect(s, now) })
	if err != nil {
		return res, err
	}
	res.Reimaged, res.Task = true, acc.Task
	if res.LastState, err = r.awaitReset(s, rt, acc); err != nil {
		return res, err
	}
	res.BootOverride = r.progress.BootOverride
	r.progress.Task, r.progress.LastState = res.Task, res.LastState
	r.heartbeat("reset took effect")
	return res, nil
}

// resumedReimage reports the reset an earlier attempt sent (or may have).
// When that attempt died before it saw the reset take effect, the reset may
// never have reached the BMC (the worker was killed between its record and
// the POST): the evidence is looked for against the state it recorded, and
// the reset sent once more when none shows, as after a reset without
// effect (awaitReset).
func (r *run) resumedReimage(prev progress) (ReimageResult, error) {
	r.progress = prev // a crash of this attempt must not forget it either
	res := ReimageResult{Version: prev.Version, Reimaged: true, Task: prev.Task, LastState: prev.LastState}
	sent := " (reset " + prev.ResetType + " sent by an earlier attempt)"
	switch {
	case res.LastState != "":
	case prev.Before != nil && prev.Task == "" && prev.ResetType != "":
		last, err := r.awaitReset(prev.Before.system(), prev.ResetType, bmcclient.Accepted{})
		if err != nil {
			return res, err
		}
		res.LastState = last + sent
		r.progress.LastState = res.LastState
	default: // an older worker's record: say what the BMC shows now
		if s, err := r.system("read the System"); err == nil {
			res.LastState = describeState(s) + sent
		}
		r.progress.LastState = res.LastState
	}
	r.heartbeat("reset issued by an earlier attempt")
	return res, nil
}

// tookEffect: the System shows a reset sent when it looked like before:
// the power changed, BootProgress moved, or the one-time boot was consumed.
// Never a judgement of the install.
func tookEffect(before, now bmcclient.System) bool {
	switch {
	case now.PowerState != before.PowerState && now.PowerState != "":
		return true
	case before.BootProgress != "" && now.BootProgress != "" && now.BootProgress != before.BootProgress:
		return true
	}
	return before.BootOverride == "Once" && now.BootOverride != "" && now.BootOverride != "Once"
}

// awaitReset returns what the BMC shows once the reset took effect. A 202
// task is proof enough. A reset that shows no change within
// ResetEvidenceTimeout is sent once more (a BMC that dropped it); no change
// after that either fails typed: the install did not start.
func (r *run) awaitReset(before bmcclient.System, rt string, acc bmcclient.Accepted) (string, error) {
	if acc.Task != "" {
		s, err := r.system("read the System")
		if err != nil { // the 202 is the evidence; the state is a courtesy
			return "task " + acc.Task + " accepted", nil
		}
		return describeState(s), nil
	}
	now, seen, err := r.resetSeen(before)
	if err != nil || seen {
		return describeState(now), err
	}
	r.heartbeat("no effect of " + rt + " seen; sending it once more")
	again, err := r.reset(rt, func(now bmcclient.System) bool { return tookEffect(before, now) })
	if err != nil {
		return "", err
	}
	if again.Task != "" {
		return "task " + again.Task + " accepted (the reset was sent twice)", nil
	}
	if now, seen, err = r.resetSeen(before); err != nil || seen {
		return describeState(now) + " (the reset was sent twice)", err
	}
	return "", &stepError{"wait for the reset to take effect", &failure{kindNoEffect,
		noChange(rt+" twice", again, r.a.resetEvidenceTimeout(), now) + ": the install did not start"}}
}

// resetSeen waits up to ResetEvidenceTimeout for tookEffect.
func (r *run) resetSeen(before bmcclient.System) (bmcclient.System, bool, error) {
	var s bmcclient.System
	err := r.waitUntil("wait for the reset to take effect", r.a.resetEvidenceTimeout(), func() (bool, error) {
		var err error
		s, err = r.system("read the System")
		return err == nil && tookEffect(before, s), err
	})
	if errors.Is(err, errWaitLimit) {
		return s, false, nil
	}
	return s, err == nil, err
}

// describeState is the System as errors and results show it.
func describeState(s bmcclient.System) string {
	var parts []string
	for _, f := range [][2]string{{"PowerState", s.PowerState}, {"Status.State", s.State}, {"BootProgress", s.BootProgress}} {
		if f[1] != "" {
			parts = append(parts, f[0]+" "+f[1])
		}
	}
	if len(parts) == 0 {
		return "no state reported"
	}
	return strings.Join(parts, ", ")
}

func (a *Activities) resetEvidenceTimeout() time.Duration {
	return orDefault(a.ResetEvidenceTimeout, time.Minute)
}
