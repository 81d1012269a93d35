package lease

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/model/modeltest"
)

// Four racks: KCP in racks 1-3, spare in rack 4.
func site() model.Cluster {
	return modeltest.Cluster("r1-m1:kcp", "r2-m1:kcp", "r3-m1:kcp", "r4-m1:kcp-spare", "r1-m2:management", "r1-c1:compute", "r2-c1:compute")
}

func TestCheck(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	kcpRestart := Lease{BMM: "r1-m1", Holder: "action:site-a:r1-m1:1", Operation: "restart", Disruptive: true, ControlPl: true, Since: t0}
	unhealthyKCP := site()
	unhealthyKCP.BMMs[1].DetailedStatusMessage = model.UnhealthyMessage
	notReadyKCP := site()
	notReadyKCP.BMMs[2].ReadyState = model.ReadyUnknown
	unknownSince := site()
	unknownSince.BMMs[2].ReadyState, unknownSince.BMMs[2].ReadySince = model.ReadyUnknown, &t0
	readOnlyKCP := site()
	readOnlyKCP.BMMs[2].ReadOnlyRootFS = true
	updating := site()
	updating.DetailedStatus = model.ClusterUpdating
	failed := site()
	failed.DetailedStatus, failed.DetailedStatusMessage = model.ClusterFailed, "KCP r2-m1 failed"

	cases := []checkCase{
		{"compute restart", site(), nil, Request{BMM: "r1-c1", Holder: "a1", Operation: "restart"}, ""},
		{"kcp restart alone", site(), nil, Request{BMM: "r2-m1", Holder: "a2", Operation: "restart"}, ""},
		{"second kcp disruption", site(), []Lease{kcpRestart}, Request{BMM: "r2-m1", Holder: "a2", Operation: "reimage"},
			"already disrupting KCP server r1-m1"},
		{"kcp cordon is not disruptive", site(), []Lease{kcpRestart}, Request{BMM: "r2-m1", Holder: "a2", Operation: "cordon"}, ""},
		{"compute while kcp disrupted", site(), []Lease{kcpRestart}, Request{BMM: "r1-c1", Holder: "a3", Operation: "reimage"}, ""},
		{"spare while kcp disrupted", site(), []Lease{kcpRestart}, Request{BMM: "r4-m1", Holder: "a3", Operation: "reimage"}, ""},
		{"leased server", site(), []Lease{kcpRestart}, Request{BMM: "r1-m1", Holder: "other", Operation: "cordon"}, "r1-m1 is busy"},
		{"same holder again", site(), []Lease{kcpRestart}, Request{BMM: "r1-m1", Holder: kcpRestart.Holder, Operation: "restart"}, ""},
		{"kcp set not full: unhealthy", unhealthyKCP, nil, Request{BMM: "r1-m1", Holder: "a", Operation: "restart"}, "r2-m1 is unhealthy"},
		{"kcp set not full: Unknown as the monitor recorded it", unknownSince, nil, Request{BMM: "r1-m1", Holder: "a", Operation: "restart"}, "r3-m1 is not Ready (Unknown since 2026-11-21T09:00:00Z)"},
		{"kcp set not full: read-only root filesystem", readOnlyKCP, nil, Request{BMM: "r1-m1", Holder: "a", Operation: "restart"}, "r3-m1 has a read-only root filesystem"},
		{"kcp set not full: not ready", notReadyKCP, nil, Request{BMM: "r1-m1", Holder: "a", Operation: "restart"}, "r3-m1 is not Ready (Unknown)"},
		{"rebooting the sick kcp itself", notReadyKCP, nil, Request{BMM: "r3-m1", Holder: "remediate:site-a:r3-m1", Operation: "remediation", AllowDegraded: true}, ""},
		{"unknown bmm", site(), nil, Request{BMM: "nope", Holder: "a", Operation: "restart"}, `bmm "nope" is not in cluster site-a`},
		{"updating refuses user action", updating, nil, Request{BMM: "r1-c1", Holder: "a", Operation: "restart"}, "is Updating"},
		{"updating allows upgrade child", updating, nil, Request{BMM: "r1-c1", Holder: "u", Operation: "upgrade", AllowWhileUpdating: true}, ""},
		{"failed cluster", failed, nil, Request{BMM: "r1-c1", Holder: "a", Operation: "restart"}, "is Failed, not Running: KCP r2-m1 failed"},
		{"missing fields", site(), nil, Request{BMM: "r1-c1"}, "needs bmm, holder and operation"},
	}
	runCheckCases(t, cases)
}

func TestMissingKCPCountsAgainstRackTable(t *testing.T) {
	c := site()
	c.BMMs[0].Roles = []model.Role{model.RoleManagement} // only two KCP left on a four-rack site
	got := MissingKCP(c)
	if len(got) != 1 || got[0] != "2 of 3 KCP servers" {
		t.Fatalf("MissingKCP = %v", got)
	}
}

func TestGrantReleaseHolders(t *testing.T) {
	now := time.Now()
	var held []Lease
	held = Grant(held, Request{BMM: "b", Holder: "h1", Operation: "reimage"}, true, now)
	held = Grant(held, Request{BMM: "a", Holder: "h2", Operation: "cordon"}, false, now)
	held = Grant(held, Request{BMM: "b", Holder: "h1", Operation: "reimage"}, true, now)
	if len(held) != 2 || held[0].BMM != "a" || !held[1].ControlPl {
		t.Fatalf("held = %+v", held)
	}
	if h := Holders(held); len(h) != 2 || h[0] != "h1" {
		t.Fatalf("Holders = %v", h)
	}
	held = Release(held, "", "h1")
	if len(held) != 1 || held[0].Holder != "h2" {
		t.Fatalf("after release %+v", held)
	}
	held = Release(held, "a", "someone-else")
	if len(held) != 1 {
		t.Fatal("release by a non-holder must not drop the lease")
	}
}

// checkCase is one request to Check and what it must answer ("" granted).
type checkCase struct {
	name    string
	c       model.Cluster
	held    []Lease
	req     Request
	wantErr string
}

// runCheckCases runs each case through Check as a subtest.
func runCheckCases(t *testing.T, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.c, tc.held, tc.req)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("want granted, got %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("want error containing %q, got %v", tc.wantErr, err)
			}
		})
	}
}
