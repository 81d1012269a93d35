package breakglass

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
)

var t0 = time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC)

func state(status, msg string, entries ...string) api.ClusterState {
	c := modeltest.Cluster(entries...)
	c.DetailedStatus, c.DetailedStatusMessage = status, msg
	return api.ClusterState{Cluster: c}
}

func TestCheckResume(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status string
		reason string
		want   []string // every problem named at once
	}{
		{"degraded", model.ClusterDegraded, "INC-7", nil},
		{"failed", model.ClusterFailed, "INC-7", nil},
		{"running", model.ClusterRunning, "INC-7", []string{"is Running: resume is for a Degraded or Failed cluster"}},
		{"updating", model.ClusterUpdating, "INC-7", []string{"an upgrade is in progress"}},
		{"paused", model.ClusterUpdatePaused, "INC-7", []string{"is UpdatePaused"}},
		{"no reason and running", model.ClusterRunning, "", []string{"reason is empty", "is Running"}},
		{"multi-line reason", model.ClusterDegraded, "a\nb", []string{"spans lines"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckResume(state(tc.status, "", "r1-m1:kcp").Cluster, api.ResumeRequest{Reason: tc.reason})
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("want accepted, got %v", err)
				}
				return
			}
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("want error containing %q, got %v", w, err)
				}
			}
		})
	}
}

// Resume reports what was wrong (status, message, Unhealthy, the KCP set,
// leases) and records who, when and why.
func TestResumeReports(t *testing.T) {
	st := state(model.ClusterDegraded, "storm guard: 2 control-plane nodes unhealthy", "r1-m1:kcp", "r2-m1:kcp!", "r3-m1:kcp?", "r1-c1:compute!")
	st.Leases = []lease.Lease{{BMM: "r1-c1", Holder: "action:site-a:r1-c1:3", Operation: lease.OpReplace, Since: t0}}
	res, act := Resume(st, api.ResumeRequest{Reason: " INC-9: PSUs swapped ", By: "alice"}, t0)
	if res.PreviousStatus != model.ClusterDegraded || !strings.Contains(res.PreviousMessage, "storm guard") {
		t.Errorf("previous = %q %q", res.PreviousStatus, res.PreviousMessage)
	}
	if strings.Join(res.Unhealthy, ",") != "r2-m1,r1-c1" {
		t.Errorf("unhealthy = %v", res.Unhealthy)
	}
	if got := strings.Join(res.MissingKCP, ";"); !strings.Contains(got, "r2-m1 is unhealthy") || !strings.Contains(got, "r3-m1 is not Ready") {
		t.Errorf("missing KCP = %v", res.MissingKCP)
	}
	if len(res.Leases) != 1 || res.Leases[0].Holder != "action:site-a:r1-c1:3" {
		t.Errorf("leases = %v", res.Leases)
	}
	if res.Status != model.ClusterRunning || !strings.HasPrefix(res.Message, ResumePrefix+"alice at 2026-11-23T04:00:00Z: INC-9: PSUs swapped (was Degraded: storm guard") {
		t.Errorf("now = %q %q", res.Status, res.Message)
	}
	if act.Act != api.ActResume || act.Reason != "INC-9: PSUs swapped" || act.By != "alice" || !act.Time.Equal(t0) || act.BMM != "" {
		t.Errorf("act = %+v", act)
	}
}

func TestCheckRelease(t *testing.T) {
	st := state(model.ClusterRunning, "", "r1-m1:kcp", "r1-c1:compute")
	st.Leases = []lease.Lease{{BMM: "r1-c1", Holder: "action:site-a:r1-c1:3", Operation: lease.OpReimage, Since: t0}}
	for _, tc := range []struct {
		name string
		req  api.LeaseReleaseRequest
		want []string
	}{
		{"held", api.LeaseReleaseRequest{BMM: "r1-c1", Reason: "holder crashed"}, nil},
		{"nothing held", api.LeaseReleaseRequest{BMM: "r1-m1", Reason: "x"}, []string{"r1-m1 holds no lease"}},
		{"unknown bmm, no reason", api.LeaseReleaseRequest{BMM: "nope"}, []string{`bmm "nope" is not in cluster site-a`, "reason is empty"}},
		{"no bmm", api.LeaseReleaseRequest{Reason: "x"}, []string{"bmm is empty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := CheckRelease(st, tc.req)
			if len(tc.want) == 0 {
				if err != nil || l.Holder != "action:site-a:r1-c1:3" {
					t.Fatalf("want the lease, got %+v %v", l, err)
				}
				return
			}
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("want error containing %q, got %v", w, err)
				}
			}
		})
	}
}

func TestReleasedOnlyWhenTheHolderEnded(t *testing.T) {
	l := lease.Lease{BMM: "r1-c1", Holder: "action:site-a:r1-c1:3", Operation: lease.OpReimage, Since: t0}
	req := api.LeaseReleaseRequest{BMM: "r1-c1", Reason: "holder terminated", By: "bob"}
	if _, err := Released(l, true, req, t0); err == nil || !strings.Contains(err.Error(), "still running") {
		t.Fatalf("running holder: %v", err)
	}
	act, err := Released(l, false, req, t0)
	if err != nil || act.Act != api.ActLeaseRelease || act.Holder != l.Holder || act.Reason != "holder terminated" || !strings.Contains(act.Detail, "reimage lease") {
		t.Fatalf("ended holder: %+v %v", act, err)
	}
}

func TestAppendKeepsTheLast(t *testing.T) {
	var log []api.BreakGlassAct
	for i := 0; i < api.MaxBreakGlassKept+5; i++ {
		log = Append(log, api.BreakGlassAct{Reason: strings.Repeat("x", i%3+1), Time: t0.Add(time.Duration(i) * time.Second)})
	}
	if len(log) != api.MaxBreakGlassKept || !log[0].Time.Equal(t0.Add(5*time.Second)) {
		t.Fatalf("kept %d, first at %v", len(log), log[0].Time)
	}
}

func TestResumedDuring(t *testing.T) {
	storm := "storm guard: 2 control-plane nodes unhealthy (a, b)"
	res, _ := Resume(state(model.ClusterDegraded, storm, "r1-m1:kcp"), api.ResumeRequest{Reason: "ok (known)", By: "x"}, t0)
	resumed := model.Cluster{DetailedStatus: res.Status, DetailedStatusMessage: res.Message}
	if !ResumedDuring(resumed, model.ClusterDegraded, storm) {
		t.Errorf("resumed during the same storm: %q", res.Message)
	}
	if ResumedDuring(resumed, model.ClusterDegraded, "storm guard: 3 control-plane nodes unhealthy (a, b, c)") {
		t.Error("a changed storm is not acknowledged")
	}
	if ResumedDuring(model.Cluster{DetailedStatus: model.ClusterRunning, DetailedStatusMessage: "(was Degraded: " + storm + ")"}, model.ClusterDegraded, storm) {
		t.Error("only a resume acknowledges")
	}
}
