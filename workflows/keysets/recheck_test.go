package keysets

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
)

// A BMC replaced half an hour into a BMC keyset's wait comes back without
// its accounts; the recheck signal naming it (and one naming a BMM the
// site no longer has) makes the waiting run apply the keyset on that BMC alone
// and record its outcome; the run goes on waiting and disables every
// account at the expiration.
func TestRecheckAppliesTheKeysetOnThatBMCAlone(t *testing.T) {
	s := newSite(5)
	s.expiry = true
	expires := start.Add(2 * time.Hour)
	s.st.Keysets[0].Expiration = expires
	env := s.env()
	var before map[string]int
	env.RegisterDelayedCallback(func() {
		s.mu.Lock()
		s.accounts["rack1-c3"] = map[string]bmc.AccountResult{} // a new BMC
		before = map[string]int{}
		for b, n := range s.calls {
			before[b] = n
		}
		s.mu.Unlock()
		for _, b := range []string{"rack1-c3", "gone"} {
			env.SignalWorkflow(api.SignalKeysetRecheck, b)
		}
	}, 30*time.Minute)
	var after map[string]int
	var back bool
	var o keyset.Outcome
	env.RegisterDelayedCallback(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		after = map[string]int{}
		for b, n := range s.calls {
			after[b] = n
		}
		back = s.accounts["rack1-c3"]["alice"].Enabled && s.accounts["rack1-c3"]["bob"].Enabled
		o = keyset.OutcomesFor(s.st.Keysets[0], []string{"rack1-c3"})[0]
	}, time.Hour)
	env.ExecuteWorkflow(api.KeysetWorkflowName, api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"})
	res := result(t, env, "KeysetWorkflow")
	if !back {
		t.Error("the replaced BMC's accounts were not applied again on the recheck")
	}
	for b, n := range after {
		want := before[b]
		if b == "rack1-c3" {
			want += 2 // its two accounts, once
		}
		if n != want {
			t.Errorf("%s: %d account calls after the recheck, %d before; want %d", b, n, before[b], want)
		}
	}
	if o.State != keyset.Applied || o.At.Before(start.Add(30*time.Minute)) {
		t.Errorf("rack1-c3's outcome %+v, want applied again at the recheck", o)
	}
	if res.Disabled != 5 {
		t.Errorf("result %+v: want every BMC's accounts disabled at the expiration, the run still waiting after the recheck", res)
	}
}

// A run checks maxRechecks BMCs while it waits, then continues as new:
// its history stays a run's size.
func TestRechecksContinueAsNewPastTheirBound(t *testing.T) {
	s := newSite(2)
	s.expiry = true
	s.st.Keysets[0].Expiration = start.Add(24 * time.Hour)
	env := s.env()
	for i := 1; i <= maxRechecks+1; i++ {
		env.RegisterDelayedCallback(func() { env.SignalWorkflow(api.SignalKeysetRecheck, "rack1-c1") }, time.Duration(i)*time.Minute)
	}
	env.ExecuteWorkflow(api.KeysetWorkflowName, api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"})
	continuedAsNew(t, env.GetWorkflowError(), "after its rechecks")
	s.mu.Lock()
	defer s.mu.Unlock()
	if want := 2 * (1 + maxRechecks); s.calls["rack1-c1"] != want {
		t.Errorf("rack1-c1: %d account calls, want %d (the pass, then %d rechecks)", s.calls["rack1-c1"], want, maxRechecks)
	}
	if env.Now().After(start.Add(time.Hour)) {
		t.Errorf("continued as new at %s, want at the %dth recheck", env.Now(), maxRechecks+1)
	}
}
