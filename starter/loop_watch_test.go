package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
)

// Off a terminal the loop prints a timestamped line per change (never a
// redraw), shows the last frame and returns its error.
func TestWatchLoopPlainLines(t *testing.T) {
	defer func(d time.Duration) { watchInterval = d }(watchInterval)
	watchInterval = 0
	drew := false
	draw := func(io.Writer) { drew = true }
	frames := []frame{{Line: "a", Draw: draw}, {Line: "a", Draw: draw}, {Line: "b"}, {Line: "c", Done: true, Err: errors.New("over")}}
	var out bytes.Buffer
	n := 0
	err := watch(context.Background(), &out, func(context.Context) (frame, error) {
		f := frames[n]
		n++
		return f, nil
	})
	if err == nil || err.Error() != "over" {
		t.Fatalf("err %v, want the done frame's", err)
	}
	if drew {
		t.Fatal("redrew on a non-terminal")
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		ts, rest, _ := strings.Cut(l, " ")
		if _, err := time.Parse("15:04:05", ts); err != nil {
			t.Fatalf("line %q lacks its time", l)
		}
		got = append(got, rest)
	}
	if strings.Join(got, ",") != "a,b,c" {
		t.Fatalf("lines %q, want a,b,c (one per change)", got)
	}
}

// A poll error ends the watch at once; a cancelled context ends it between polls.
func TestWatchLoopStops(t *testing.T) {
	boom := errors.New("describe failed")
	err := watch(context.Background(), io.Discard, func(context.Context) (frame, error) { return frame{}, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	err = watch(ctx, io.Discard, func(context.Context) (frame, error) { cancel(); return frame{Line: "x"}, nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want canceled", err)
	}
}

func TestActionWatchLine(t *testing.T) {
	aw := &actionWatch{in: api.ActionInput{Action: api.ActionRestart, BMM: "rack1-c1"}, bmmState: "Restarting"}
	if got := aw.line(nil); got != "restart rack1-c1 | Restarting | between steps" {
		t.Fatalf("%q", got)
	}
	got := aw.line([]actionStep{{Step: "Wait for node rack1-c1 Ready", State: "started", Attempt: 2, LastFailure: "timeout"}})
	if got != "restart rack1-c1 | Restarting | step: Wait for node rack1-c1 Ready (started, attempt 2: timeout)" {
		t.Fatalf("%q", got)
	}
	var b bytes.Buffer
	aw.id = "action:site-a:rack1-c1:1"
	aw.draw(&b, []actionStep{{Step: "Restart rack1-c1", State: "started", Attempt: 1}})
	for _, w := range []string{aw.id, "STEP", "Restart rack1-c1", "started"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("terminal view lacks %q:\n%s", w, b.String())
		}
	}
}

// The remediation line shows the ladder as a bar, never overflowing it.
func TestRemediationLine(t *testing.T) {
	now := time.Now()
	rec := api.StepRecord{Step: remediate.Reboot, FinishedAt: &now}
	st := api.RemediationStatus{BMM: "rack1-c1", Role: model.RoleCompute, Step: remediate.Reprovision, Steps: []api.StepRecord{rec}, Outcome: "reboot did not help"}
	line := remediationLine(st)
	total := len(remediate.Ladder(model.RoleCompute))
	for _, w := range []string{"rack1-c1", bar(1, total, 10), "step: reprovision", "reboot did not help"} {
		if !strings.Contains(line, w) {
			t.Errorf("%q lacks %q", line, w)
		}
	}
	st.Steps = []api.StepRecord{rec, rec, rec, rec, rec, rec}
	_ = remediationLine(st) // more records than rungs: no panic
	st.Role = ""
	if line := remediationLine(st); !strings.HasPrefix(line, "rack1-c1 starting") {
		t.Errorf("%q: want starting while the role is unknown", line)
	}
	st.Finished, st.Role = true, model.RoleCompute
	if line := remediationLine(st); !strings.HasPrefix(line, "rack1-c1 compute finished after 6 steps") {
		t.Errorf("%q", line)
	}
}

// The table says when a remediation continues an earlier one's ladder,
// and after which steps.
func TestRemediationTableShowsTheContinuedLadder(t *testing.T) {
	now := time.Now()
	st := api.RemediationStatus{BMM: "rack1-c1", Role: model.RoleCompute, Since: now, Outcome: "reprovisioning",
		Steps:     []api.StepRecord{{Step: remediate.Reprovision, StartedAt: now}},
		Continued: []remediate.StepResult{{Step: remediate.Reboot, OK: true}}}
	var b strings.Builder
	if err := writeRemediation(&b, "table", st); err != nil {
		t.Fatal(err)
	}
	if want := "continues the ladder of an earlier remediation within the damping window, after: reboot (ok)"; !strings.Contains(b.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, b.String())
	}
	st.Continued = nil
	b.Reset()
	if err := writeRemediation(&b, "table", st); err != nil || strings.Contains(b.String(), "continues") {
		t.Errorf("a fresh ladder says it continues (err %v):\n%s", err, b.String())
	}
}
