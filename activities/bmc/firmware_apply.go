package bmc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/firmware"
)

// ApplyFirmwareInput brings one component of one server to its baseline.
// The caller holds the server's disruption (drained, leased): the activity
// powers the host off when the component asks (apply.hostOff) and resets
// or starts it when the update needs a host start to take effect.
type ApplyFirmwareInput struct {
	Endpoint
	Component firmware.Component
	// TaskLimit bounds the update's task and the install a host reset
	// starts; AwayLimit how long the BMC may not answer after updating
	// itself. Zero: 30 min and 10 min.
	TaskLimit time.Duration
	AwayLimit time.Duration
	// LeaveStaged: host firmware the BMC stages until a host reset (asked
	// OnReset, or a task Scheduled, Staged, Pending for a reset) is left
	// staged and unproven (the result's Staged), so FinishStagedFirmware
	// starts the host once for all of a server's staged components. False
	// (every history from before it): the host start and the proof here.
	LeaveStaged bool `json:",omitempty"`
}

// ApplyFirmwareResult says what was done and what the inventory shows.
type ApplyFirmwareResult struct {
	Component string `json:"component"`
	From      string `json:"from,omitempty"`
	To        string `json:"to"`
	// Applied is false when the component already was at its baseline.
	Applied bool `json:"applied"`
	// HostStarted: the host was reset (or powered on) for the update.
	HostStarted bool `json:"hostStarted,omitempty"`
	// Staged: the update waited for a host reset. From ApplyFirmware with
	// LeaveStaged: left so, not proven yet (To empty); from
	// FinishStagedFirmware: installed at its one host start, proven (To).
	// Task is the update's task monitor ("" none).
	Staged bool   `json:"staged,omitempty"`
	Task   string `json:"task,omitempty"`
	Detail string `json:"detail"`
}

// ApplyFirmware sends the component's update once, follows its task
// (PercentComplete in the heartbeat), does the host start the update
// needs, and returns once the component's source (its FirmwareInventory
// member or standard property: firmware.SourceFor) shows the minimum —
// the evidence; neither the 202 nor the task's Completed is. The request is
// recorded in the heartbeat before it is sent, so a resumed attempt never
// sends a second one; it follows the recorded task, or the inventory.
// Failures are typed and name the component: FirmwareTaskException,
// FirmwareTaskStuck (past TaskLimit, or a BMC away past AwayLimit),
// FirmwareUnchanged.
func (a *Activities) ApplyFirmware(ctx context.Context, in ApplyFirmwareInput) (ApplyFirmwareResult, error) {
	return perform(ctx, a, in.Endpoint, func(r *run) (ApplyFirmwareResult, error) { return r.applyFirmware(in) })
}

func (r *run) applyFirmware(in ApplyFirmwareInput) (ApplyFirmwareResult, error) {
	c := in.Component
	in.TaskLimit, in.AwayLimit = orDefault(in.TaskLimit, 30*time.Minute), orDefault(in.AwayLimit, 10*time.Minute)
	if p, ok := r.resumed(); ok {
		r.progress = p
	}
	res := ApplyFirmwareResult{Component: c.Name, Applied: r.progress.FwRequested}
	fw, err := r.firmwareServer()
	if err != nil {
		return res, err
	}
	rows := firmware.JudgeComponent(c, fw)
	switch firmware.Worst(rows) {
	case firmware.AtBaseline:
		res.To, res.Detail = rows[0].Current, c.Name+" is at its baseline "+c.Minimum
		return res, nil
	case firmware.Unknown:
		return res, &stepError{"judge " + c.Name, &failure{kindRejected, fmt.Sprintf("%s cannot be judged against %s: %s", c.Name, c.Minimum, unknownWhy(rows))}}
	}
	res.From = belowCurrent(rows)
	if !r.progress.FwRequested {
		if c.Apply.HostOff {
			if err := r.powerOff(true); err != nil {
				return res, err
			}
		}
		if err := r.requestUpdate(c, relatedOf(c, fw.Items)); err != nil {
			return res, err
		}
	}
	res.Applied = true
	if r.progress.FwAwaitsStart && !r.progress.FwStartSent {
		if err := r.startUpdate(c, in.TaskLimit); err != nil {
			return res, err
		}
	}
	staged, err := r.followUpdate(c, in.TaskLimit)
	if err != nil {
		return res, err
	}
	if c.Kind != firmware.KindBMC && !staged {
		if rows, err := r.firmwareRows(c); err == nil && firmware.Worst(rows) == firmware.AtBaseline {
			res.To, res.Detail = rows[0].Current, c.Name+" shows "+rows[0].Current+" without a host start"
			return res, nil
		}
	}
	if in.LeaveStaged && c.Kind != firmware.KindBMC && !r.progress.FwHostStarted && (staged || c.Apply.ApplyTime == firmware.ApplyOnReset) {
		res.Staged, res.Task = true, r.progress.FwTask
		res.Detail = fmt.Sprintf("%s %s → %s staged until a host reset (%s)", c.Name, res.From, c.Minimum, cmp.Or(r.progress.FwState, "asked OnReset"))
		return res, nil
	}
	limit := in.AwayLimit
	if c.Kind != firmware.KindBMC {
		limit = in.TaskLimit
		if err := r.startHostOnce(c.Name); err != nil {
			return res, err
		}
		res.HostStarted = true
	}
	rows, err = r.awaitFirmware(c, limit)
	if errors.Is(err, errWaitLimit) {
		what := "after the update"
		if res.HostStarted {
			what += " and a host start"
		}
		return res, &stepError{"prove " + c.Name, &failure{kindFirmwareUnchanged,
			fmt.Sprintf("%s still shows %s %s %s; the baseline requires %s", c.Name, currentOf(rows), limit, what, c.Minimum)}}
	}
	if err != nil {
		return res, err
	}
	res.To, res.Detail = rows[0].Current, fmt.Sprintf("%s %s → %s (%s)", c.Name, res.From, rows[0].Current, rows[0].Source)
	return res, nil
}

// firmwareRows reads the firmware and judges the component where
// firmware.SourceFor says, as the plan did: the proof reads that source.
func (r *run) firmwareRows(c firmware.Component) ([]firmware.Row, error) {
	s, err := r.firmwareServer()
	if err != nil {
		return nil, err
	}
	return firmware.JudgeComponent(c, s), nil
}

// firmwareServer reads the firmware: the inventory, or the properties
// where the BMC keeps the versions (firmware.SourceFor).
func (r *run) firmwareServer() (firmware.Server, error) {
	return read(r, "read the firmware inventory", r.c.Firmware)
}

// requestUpdate records the request, then sends it. A request the BMC
// answered with a refusal started nothing: the record is cleared (busy
// is retried here a few times, then by Temporal; any other refusal fails
// at once, in the BMC's words). A request left unanswered may have
// started: the record stays, and the inventory will tell. related are the
// URIs the component's members name (the request's Targets).
func (r *run) requestUpdate(c firmware.Component, related []string) error {
	req := bmcclient.UpdateRequest{Image: c.Image, ApplyTime: c.Apply.ApplyTime, Kind: c.Kind, RelatedItem: related}
	if req.ApplyTime == firmware.ApplyImmediate {
		req.ApplyTime = ""
	}
	var file *os.File
	if c.Apply.Method == firmware.MethodMultipartPush {
		f, err := fetchPackage(r.ctx, c.Image, r.a.requestTimeout())
		if err != nil {
			return &stepError{"fetch " + c.Name + "'s package", err}
		}
		defer os.RemoveAll(filepath.Dir(f.Name()))
		defer f.Close()
		file = f
		// Before the record: a resumed attempt must know the image waits
		// for StartUpdate even when the push's answer was lost.
		var at string
		var awaits bool
		if err := r.retry("choose the apply time of "+c.Name+"'s push", func() (err error) {
			at, awaits, err = r.c.PushApplyTime(r.ctx, req.ApplyTime)
			return err
		}); err != nil {
			return err
		}
		req.ApplyTime, r.progress.FwAwaitsStart = at, awaits
	}
	backoff := r.a.backoff()
	for try := 1; ; try++ {
		r.progress.FwRequested = true
		if err := r.record("requesting the update of " + c.Name); err != nil {
			r.progress.FwRequested = false // nothing was sent: a retry may send it
			r.heartbeat("the update of " + c.Name + " was not sent")
			return err
		}
		var acc bmcclient.Accepted
		var err error
		if file != nil {
			acc, err = r.c.PushUpdate(r.ctx, file, req)
		} else {
			acc, err = r.c.SimpleUpdate(r.ctx, req)
		}
		switch {
		case err == nil:
			r.progress.FwTask = acc.Task
			// Best effort: a retry that finds no monitor judges by the
			// inventory, and sends nothing either way.
			r.record("update of " + c.Name + " accepted (" + acc.String() + ")")
			return nil
		case !updateAnswered(err):
			r.heartbeat("the update request of " + c.Name + " got no answer; reading the inventory")
			return nil
		}
		r.progress.FwRequested = false
		// Best effort: a retry that still finds the request recorded sends
		// none and judges by the inventory: never two updates.
		r.record("update of " + c.Name + " refused: " + describe(err))
		if !updateBusy(err) || try >= r.a.attempts() {
			return &stepError{"request the update of " + c.Name, err}
		}
		if !r.sleep(backoff) {
			return &stepError{"request the update of " + c.Name, r.ctx.Err()}
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// relatedOf lists, once each, the RelatedItem of the installed members
// the component matches (as firmware.JudgeComponent matches them).
func relatedOf(c firmware.Component, items []firmware.Item) []string {
	re, err := regexp.Compile(c.Inventory)
	if err != nil {
		return nil
	}
	var out []string
	for _, it := range items {
		if !it.Installed() || !(re.MatchString(it.ID) || re.MatchString(it.Name)) {
			continue
		}
		for _, u := range it.RelatedItem {
			if !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
	}
	return out
}

// updateAnswered: the BMC sent an HTTP answer (or the request was never sent).
func updateAnswered(err error) bool {
	var f *failure
	var cf *bmcclient.Failure
	var ns *bmcclient.NotSent
	return errors.As(err, &f) || errors.As(err, &cf) || errors.As(err, &ns) || bmcclient.StatusOf(err) != 0
}

// updateBusy: another update runs (503, 409, Supermicro's
// OemFirmwareAlreadyInUpdateMode).
func updateBusy(err error) bool {
	k := classify(err)
	return k == kindTransient || k == kindConflict || strings.Contains(describe(err), "InUpdateMode")
}

// awaitFirmware waits until its source shows the component at its
// minimum; a BMC that does not answer meanwhile is rebooting. The task, if
// still open (an install during POST), is watched for Exception.
func (r *run) awaitFirmware(c firmware.Component, limit time.Duration) ([]firmware.Row, error) {
	var rows []firmware.Row
	err := r.waitUntil("wait for "+c.Name+" to show "+c.Minimum, limit, func() (bool, error) {
		if err := r.installFailed(c, r.progress.FwTask); err != nil {
			return false, err
		}
		s, err := r.c.Firmware(r.ctx)
		if err != nil {
			return false, nil
		}
		rows = firmware.JudgeComponent(c, s)
		return firmware.Worst(rows) == firmware.AtBaseline, nil
	})
	return rows, err
}

// fetchPackage downloads a package into a file named as the URL's last
// element (the name a multipart push sends), in a fresh directory.
func fetchPackage(ctx context.Context, image string, timeout time.Duration) (*os.File, error) {
	u, err := url.Parse(image)
	if err != nil {
		return nil, &failure{kindConfig, "image " + image + ": " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, image, nil)
	if err != nil {
		return nil, &failure{kindConfig, err.Error()}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &failure{kindRejected, fmt.Sprintf("GET %s answered %s", bmcclient.RedactURL(image), resp.Status)}
	}
	dir, err := os.MkdirTemp("", "rackroll-fw-")
	if err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(dir, path.Base(u.Path)))
	if err == nil {
		_, err = io.Copy(f, resp.Body)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return f, nil
}

func unknownWhy(rows []firmware.Row) string {
	for _, r := range rows {
		if r.Status == firmware.Unknown {
			return r.Why
		}
	}
	return ""
}

func belowCurrent(rows []firmware.Row) string {
	for _, r := range rows {
		if r.Status == firmware.Below {
			return r.Current
		}
	}
	return ""
}

func currentOf(rows []firmware.Row) string {
	if b := belowCurrent(rows); b != "" {
		return b
	}
	if len(rows) > 0 && rows[0].Current != "" {
		return rows[0].Current
	}
	return "no version it could read"
}
