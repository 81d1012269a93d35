package lease

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

// --force lifts the cluster-status condition (Degraded, Failed) and only
// that: a reason is required, the KCP rules still refuse, and an upgrade in
// progress still refuses.
func TestCheckForce(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	with := func(status, msg string, mut func(*model.Cluster)) model.Cluster {
		c := site()
		c.DetailedStatus, c.DetailedStatusMessage = status, msg
		if mut != nil {
			mut(&c)
		}
		return c
	}
	degraded := with(model.ClusterDegraded, "storm guard: 2 control-plane nodes unhealthy", nil)
	failed := with(model.ClusterFailed, "upgrade failed", nil)
	stormKCP := with(model.ClusterDegraded, "storm guard", func(c *model.Cluster) { c.BMMs[1].ReadyState = model.ReadyUnknown })
	updating := with(model.ClusterUpdating, "", nil)
	kcpRestart := Lease{BMM: "r3-m1", Holder: "remediate:site-a:r3-m1", Operation: OpRemediation, Disruptive: true, ControlPl: true, Since: t0}
	forced := func(bmm, op string) Request {
		return Request{BMM: bmm, Holder: "a", Operation: Operation(op), Force: true, Reason: "INC-42: replace dead PSU", By: "alice"}
	}
	cases := []checkCase{
		{"degraded refuses unforced", degraded, nil, Request{BMM: "r1-c1", Holder: "a", Operation: "restart"}, "is Degraded, not Running: storm guard"},
		{"refusal says how to act anyway", degraded, nil, Request{BMM: "r1-c1", Holder: "a", Operation: "restart"}, "--force --reason TEXT"},
		{"degraded accepts forced compute", degraded, nil, forced("r1-c1", "restart"), ""},
		{"failed accepts forced reimage", failed, nil, forced("r1-c1", "reimage"), ""},
		{"degraded accepts forced kcp restart (set full)", degraded, nil, forced("r1-m1", "restart"), ""},
		{"force keeps the kcp-set rule", stormKCP, nil, forced("r1-m1", "restart"), "r2-m1 is not Ready"},
		{"force keeps one kcp disruption at a time", degraded, []Lease{kcpRestart}, forced("r1-m1", "reimage"), "already disrupting KCP server r3-m1"},
		{"force keeps a busy bmm busy", degraded, []Lease{kcpRestart}, forced("r3-m1", "cordon"), "r3-m1 is busy"},
		{"force does not cut into an upgrade", updating, nil, forced("r1-c1", "restart"), "is Updating"},
		{"force without reason", degraded, nil, Request{BMM: "r1-c1", Holder: "a", Operation: "restart", Force: true, Reason: "  "}, "reason is empty"},
		{"reason without force", site(), nil, Request{BMM: "r1-c1", Holder: "a", Operation: "restart", Reason: "x"}, `reason "x" given without force`},
		{"force on a running cluster is harmless", site(), nil, forced("r1-c1", "restart"), ""},
	}
	runCheckCases(t, cases)
}

func TestCheckReason(t *testing.T) {
	for _, tc := range []struct {
		force   bool
		reason  string
		wantErr string
	}{
		{true, "INC-1: PSU swap", ""},
		{false, "", ""},
		{true, "", "reason is empty"},
		{true, "a\nb", "spans lines"},
		{false, "why", "without force"},
		{true, strings.Repeat("x", MaxReasonLen+1), "allowed at most 500"},
	} {
		err := CheckReason(tc.force, tc.reason)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("CheckReason(%v, %.20q) = %v, want %q", tc.force, tc.reason, err, tc.wantErr)
		}
	}
}
