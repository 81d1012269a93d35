package keysets

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// start is when the tests' environments start (site.env).
var start = version.Add(time.Minute)

// enabledEverywhere says whether every account of bmc-oncall is enabled
// on every BMC of s.
func (s *site) enabledEverywhere() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.st.Cluster.BMMs {
		for _, user := range []string{"alice", "bob"} {
			if !s.accounts[b.Name][user].Enabled {
				return false
			}
		}
	}
	return true
}

// continued runs the run that continues an ended one (a continue-as-new)
// in a new environment from where the last one's clock stopped, as the
// server starts it.
func continued(t *testing.T, env *testsuite.TestWorkflowEnvironment, at time.Time, in api.KeysetInput, before func(*testsuite.TestWorkflowEnvironment)) error {
	t.Helper()
	env.SetStartTime(at)
	if before != nil {
		before(env)
	}
	env.ExecuteWorkflow(api.KeysetWorkflowName, in)
	return env.GetWorkflowError()
}

// updatedSite is a site of n BMCs whose BMC keyset expires in 2 h and is
// updated an hour in to expire at 3 h, and the environment of its first
// run; signal says whether the update signals the waiting run, as the
// starter does.
func updatedSite(n int, signal bool) (*site, *testsuite.TestWorkflowEnvironment) {
	s := newSite(n)
	s.expiry = true
	s.st.Keysets[0].Expiration = start.Add(2 * time.Hour)
	env := s.env()
	env.RegisterDelayedCallback(func() {
		s.mu.Lock()
		s.st.Keysets[0].Expiration, s.st.Keysets[0].Updated = start.Add(3*time.Hour), start.Add(time.Hour)
		s.mu.Unlock()
		if signal {
			env.SignalWorkflow(api.SignalKeysetChanged, nil)
		}
	}, time.Hour)
	return s, env
}

// continuedAsNew is the continue-as-new a run ended with (err); the test
// ends, saying when it should have continued (when), if it ended otherwise.
func continuedAsNew(t *testing.T, err error, when string) *workflow.ContinueAsNewError {
	t.Helper()
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		t.Fatalf("the run ended with %v, want a continue-as-new %s", err, when)
	}
	return can
}

// A BMC keyset expiring in 2 h: applied at once, every account still
// enabled a minute before 2 h, every account disabled on every BMC at
// 2 h by the same run, each BMM's outcome disabled at the expiration.
func TestBMCKeysetDisabledAtItsExpiration(t *testing.T) {
	s := newSite(5) // two waves
	s.expiry = true
	expires := start.Add(2 * time.Hour)
	s.st.Keysets[0].Expiration = expires
	env := s.env()
	var before bool
	env.RegisterDelayedCallback(func() { before = s.enabledEverywhere() }, 2*time.Hour-time.Minute)
	env.ExecuteWorkflow(api.KeysetWorkflowName, api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("KeysetWorkflow: %v", err)
	}
	var res api.KeysetResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if !before {
		t.Error("an account was not enabled everywhere a minute before the expiration")
	}
	if res.Applied != 5 || res.Disabled != 5 || res.Failed != 0 || !strings.Contains(res.Note, "expired at") {
		t.Errorf("result %+v, want 5 applied then 5 disabled, with a note of the expiry", res)
	}
	for bmm, o := range s.outcomes("bmc-oncall", false) {
		if o.State != keyset.Disabled || o.At.Before(expires) || o.At.After(expires.Add(time.Minute)) {
			t.Errorf("%s: outcome %+v, want disabled at the expiration %s", bmm, o, expires)
		}
		for _, user := range []string{"alice", "bob"} {
			if a := s.accounts[bmm][user]; a.Enabled {
				t.Errorf("%s: account %s still enabled after the expiration: %+v", bmm, user, a)
			}
		}
	}
	if took := env.Now().Sub(expires); took < 0 || took > time.Minute {
		t.Errorf("the run ended %s after the expiration, want at it", took)
	}
}

// An update that moves the expiration from 2 h to 3 h, an hour in: the
// starter's signal ends the wait, the next run applies the new version
// and waits for the new expiration, so the accounts are still enabled
// just after 2 h and disabled at 3 h.
func TestBMCKeysetUpdateResetsTheTimer(t *testing.T) {
	s, env := updatedSite(3, true)
	in := api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"}
	env.ExecuteWorkflow(api.KeysetWorkflowName, in)
	continuedAsNew(t, env.GetWorkflowError(), "on the update")
	if at := env.Now(); at.Sub(start) > time.Hour+time.Minute {
		t.Fatalf("the first run ended at +%s, want at the update (+1h)", at.Sub(start))
	}
	env2 := s.env()
	var after2h bool
	err := continued(t, env2, env.Now(), in, func(e *testsuite.TestWorkflowEnvironment) {
		e.RegisterDelayedCallback(func() { after2h = s.enabledEverywhere() }, time.Hour+time.Minute)
	})
	if err != nil {
		t.Fatalf("the continued run: %v", err)
	}
	if !after2h {
		t.Error("an account was disabled just after the old expiration (2 h): the timer was not reset")
	}
	for bmm, o := range s.outcomes("bmc-oncall", false) {
		if o.State != keyset.Disabled || o.At.Before(start.Add(3*time.Hour)) {
			t.Errorf("%s: outcome %+v, want disabled at the new expiration (3 h)", bmm, o)
		}
	}
	if s.enabledEverywhere() {
		t.Error("accounts still enabled after the new expiration")
	}
}

// A BMM keyset expiring in 2 h (another one in 48 h): the nodes run
// applies both and waits; at 2 h it continues as new, and the next run
// gives every node the set without the expired keyset's users; the
// ledger keeps removed under it and applied under the other.
func TestBMMKeysetRemovedFromNodesAtItsExpiration(t *testing.T) {
	s := newNodeSite(5)
	s.expiry = true
	expires := start.Add(2 * time.Hour)
	s.st.Keysets[1].Expiration = expires // oncall: alice and bob
	in := api.KeysetInput{Cluster: "site-a", Nodes: true}
	env := s.env()
	var before keyset.NodeReport
	env.RegisterDelayedCallback(func() { s.mu.Lock(); before = s.held["node-rack1-c3"]; s.mu.Unlock() }, 2*time.Hour-time.Minute)
	env.ExecuteWorkflow(api.KeysetWorkflowName, in)
	continuedAsNew(t, env.GetWorkflowError(), "at the expiration")
	if before.Users != 3 {
		t.Errorf("a minute before the expiration node-rack1-c3 held %d users, want 3 (alice, bob, carol)", before.Users)
	}
	if at := env.Now(); at.Before(expires) || at.After(expires.Add(time.Minute)) {
		t.Fatalf("the run continued as new at %s, want at the expiration %s", at, expires)
	}
	env2 := s.env()
	continuedAsNew(t, continued(t, env2, env.Now(), in, nil), "at the next expiration (48 h), from the continued run")
	want := keyset.Wanted(s.st.Keysets, expires)
	if want.Users != 1 {
		t.Fatalf("the set at the expiration has %d users, want carol only", want.Users)
	}
	oncall, _ := keyset.Find(s.st.Keysets, "oncall")
	night, _ := keyset.Find(s.st.Keysets, "night")
	for _, b := range s.st.Cluster.BMMs {
		if got := s.held["node-"+b.Name]; got != want {
			t.Errorf("%s holds %+v, want carol only (%+v): alice and bob removed", b.Name, got, want)
		}
		if o := keyset.OutcomesFor(oncall, []string{b.Name})[0]; o.State != keyset.Removed || o.At.Before(expires) {
			t.Errorf("oncall on %s: %+v, want removed at the expiration", b.Name, o)
		}
		if o := keyset.OutcomesFor(night, []string{b.Name})[0]; o.State != keyset.Applied || o.At.Before(expires) {
			t.Errorf("night on %s: %+v, want applied again at the expiration", b.Name, o)
		}
	}
}

// A new rackroll build current while a run waits: the run, pinned to its
// build, moves to the new one by continue-as-new (AutoUpgrade for its
// first task) rather than keep the old build from draining for weeks.
func TestKeysetWaitMovesToANewBuild(t *testing.T) {
	s := newSite(2)
	s.expiry = true
	env := s.env()
	env.SetTargetWorkerDeploymentVersionChanged(true)
	env.ExecuteWorkflow(api.KeysetWorkflowName, api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"})
	if can := continuedAsNew(t, env.GetWorkflowError(), "onto the new build"); can.InitialVersioningBehavior != workflow.ContinueAsNewVersioningBehaviorAutoUpgrade {
		t.Fatalf("continued as new with %v, want onto the new build (AutoUpgrade)", can.InitialVersioningBehavior)
	}
	if !s.enabledEverywhere() || env.Now().Sub(start) > time.Minute {
		t.Errorf("the run moved at +%s, want once applied, without waiting", env.Now().Sub(start))
	}
}

// An update whose signal was lost (a starter that died before it): the
// timer fires at the old expiration, the run reads the ledger again,
// finds the new version live, applies it instead of disabling, and
// continues as new to wait for the new expiration.
func TestBMCKeysetUpdateWithoutSignalSeenAtTheTimer(t *testing.T) {
	s, env := updatedSite(2, false)
	env.ExecuteWorkflow(api.KeysetWorkflowName, api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"})
	continuedAsNew(t, env.GetWorkflowError(), "once the new version is applied")
	if at := env.Now().Sub(start); at < 2*time.Hour || at > 2*time.Hour+time.Minute {
		t.Errorf("the run continued as new at +%s, want at the old expiration (+2h)", at)
	}
	if !s.enabledEverywhere() {
		t.Error("accounts disabled at the old expiration, though the ledger's version expires at 3 h")
	}
	for bmm, o := range s.outcomes("bmc-oncall", false) {
		if o.State != keyset.Applied || !o.At.After(start.Add(time.Hour)) {
			t.Errorf("%s: outcome %+v, want the new version applied", bmm, o)
		}
	}
}
