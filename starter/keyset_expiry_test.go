package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/model"
)

// `keyset show` of an expired keyset says when it expired and where its
// access was taken away: a BMC keyset's accounts removed from each BMC (or disabled), a
// BMM keyset's users removed from each node; `cluster show` the same in
// a line.
func TestKeysetShowExpired(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	expired := now.Add(-time.Hour)
	var st api.ClusterState
	st.Cluster.BMMs = []model.BMM{{Name: "rack1-c1"}, {Name: "rack1-c2"}, {Name: "rack1-c3"}}
	st.Keysets = []keyset.Keyset{
		{Spec: keyset.Spec{Name: "bmc-oncall", Kind: keyset.KindBMC, Role: keyset.Operator, Expiration: expired,
			Accounts: []keyset.Account{{Name: "alice"}}},
			Outcomes: []keyset.Outcome{{BMM: "rack1-c1", State: keyset.Removed, At: expired}, {BMM: "rack1-c2", State: keyset.Disabled, At: expired},
				{BMM: "rack1-c3", State: keyset.Failed, Reason: "account alice: connection refused", At: expired}}},
		{Spec: keyset.Spec{Name: "oncall", Kind: keyset.KindBMM, PrivilegeLevel: keyset.Superuser, Expiration: expired,
			Users: []keyset.User{{Name: "alice", KeyType: "ssh-ed25519", Fingerprint: testFingerprint}}},
			Outcomes: []keyset.Outcome{{BMM: "rack1-c1", State: keyset.Removed, At: expired}, {BMM: "rack1-c2", State: keyset.Removed, At: expired},
				{BMM: "rack1-c3", State: keyset.Applied, At: expired.Add(-time.Hour)}}},
	}
	for _, c := range []struct {
		name string
		want []string
	}{
		{"bmc-oncall", []string{"(expired)", "bmc of rack1-c1: removed at 2026-11-27T11:00:00Z", "bmc of rack1-c2: disabled at 2026-11-27T11:00:00Z",
			"bmc of rack1-c3: failed at", "expired at 2026-11-27T11:00:00Z: removed from 1 of 3 BMCs, 1 disabled, 1 failed"}},
		{"oncall", []string{"node of rack1-c1: removed at 2026-11-27T11:00:00Z", "node of rack1-c3: applied at",
			"expired at 2026-11-27T11:00:00Z: removed from 2 of 3 nodes, 1 not yet removed"}},
	} {
		out := shown(t, mustView(t, st, c.name), "table", now)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: table lacks %q:\n%s", c.name, w, out)
			}
		}
	}
	want := "keysets: bmc-oncall (bmc Operator, 1, expired, removed from 1 of 3 BMCs, 1 disabled, 1 failed); oncall (bmm superuser, 1, expired, removed from 2 of 3 nodes, 1 not yet removed)"
	if got := keysetsLine(st, now); !strings.HasPrefix(got, want) {
		t.Errorf("cluster show:\ngot  %s\nwant %s…", got, want)
	}
}
