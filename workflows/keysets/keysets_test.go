package keysets

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/kernel"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

var la *ledger.Activities

// site is the test's ledger and BMCs: the ledger keeps outcomes as the
// real one does (keyset.Record, refusing another version), each BMC its
// accounts; fail answers an account's activity instead of the BMC.
type site struct {
	mu       sync.Mutex
	st       api.ClusterState
	accounts map[string]map[string]bmc.AccountResult // bmm -> user -> read back
	calls    map[string]int                          // bmm -> EnsureAccount attempts
	fail     func(in bmc.AccountInput, attempt int) error
	first    func() // called, unlocked, at each account call before it is answered
	// expiry runs the workflow as built (ChangeExpiry: it waits for the
	// expiration once applied). Without it the tests of applying take a
	// run's path recorded before ChangeExpiry, which ends once applied:
	// the same waves, and a result to read (expiry_test.go has the wait).
	expiry    bool
	pagesRead int // ReadPage calls answered
}

var version = time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)

func newSite(n int) *site {
	s := &site{accounts: map[string]map[string]bmc.AccountResult{}, calls: map[string]int{}}
	s.st.Cluster.Name = "site-a"
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("rack1-c%d", i)
		s.st.Cluster.BMMs = append(s.st.Cluster.BMMs, model.BMM{Name: name, BMC: model.BMCSpec{Address: "https://10.1.0." + fmt.Sprint(10+i)}})
		s.accounts[name] = map[string]bmc.AccountResult{}
	}
	s.st.Keysets = []keyset.Keyset{{Spec: keyset.Spec{Name: "bmc-oncall", Kind: keyset.KindBMC, Role: keyset.Operator,
		Expiration: version.Add(60 * 24 * time.Hour),
		Accounts: []keyset.Account{
			{Name: "alice", PasswordSecretRef: keyset.SecretRef{Namespace: "rackroll", Name: "bmc-alice", Key: "password"}},
			{Name: "bob", PasswordSecretRef: keyset.SecretRef{Namespace: "rackroll", Name: "bmc-bob", Key: "password"}},
		}}, Created: version, Updated: version}}
	return s
}

func (s *site) run(t *testing.T, in api.KeysetInput) (api.KeysetResult, *testsuite.TestWorkflowEnvironment) {
	t.Helper()
	env := s.env()
	env.ExecuteWorkflow(api.KeysetWorkflowName, in)
	return result(t, env, "KeysetWorkflow"), env
}

// result is what the run named what returned; the test ends if it failed.
func result(t *testing.T, env *testsuite.TestWorkflowEnvironment, what string) api.KeysetResult {
	t.Helper()
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var res api.KeysetResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

func (s *site) env() *testsuite.TestWorkflowEnvironment {
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestWorkflowEnvironment()
	env.SetStartTime(version.Add(time.Minute))
	env.RegisterWorkflowWithOptions(KeysetWorkflow, workflow.RegisterOptions{Name: api.KeysetWorkflowName})
	if !s.expiry {
		env.OnGetVersion(ChangeExpiry, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	}
	env.OnActivity(la.ReadCluster, mock.Anything, mock.Anything).Return(func(_ context.Context, _ string) (api.ClusterState, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.st.Redacted(), nil
	})
	env.OnActivity(la.ReadPage, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.ReadPageInput) (api.PageResult, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.pagesRead++
		st, total := s.st.Redacted().Page(in.Page.From, in.Page.N)
		return api.PageResult{State: st, Total: total}, nil
	})
	env.OnActivity(la.ReadBMM, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.ReadBMMInput) (api.ClusterState, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.st.Redacted().ForBMM(in.BMM) // recheck_test.go
	})
	env.OnActivity(la.RecordKeysetOutcomes, mock.Anything, mock.Anything).Return(func(_ context.Context, in ledger.KeysetOutcomesInput) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		if in.Request.Nodes != nil {
			return s.recordNodes(in.Request) // nodes_test.go
		}
		list := &s.st.Keysets
		if in.Request.Deleted {
			list = &s.st.RemovedKeysets
		}
		for i, k := range *list {
			if k.Name == in.Request.Name {
				if k, ok := keyset.Record(k, in.Request.Version, in.Request.Outcomes); ok {
					(*list)[i] = k
					return nil
				}
			}
		}
		return temporal.NewNonRetryableApplicationError("keyset "+in.Request.Name+": superseded", ledger.ErrLeaseRejected, nil)
	})
	env.OnActivity(ba.EnsureAccount, mock.Anything, mock.Anything).Return(func(_ context.Context, in bmc.AccountInput) (bmc.AccountResult, error) {
		if s.first != nil {
			s.first()
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.calls[in.BMM]++
		if s.fail != nil {
			if err := s.fail(in, s.calls[in.BMM]); err != nil {
				return bmc.AccountResult{}, err
			}
		}
		r := bmc.AccountResult{URI: "/redfish/v1/AccountService/Accounts/" + in.UserName, UserName: in.UserName, Role: string(in.Role), Enabled: in.Enable, Action: bmc.AccountCreated}
		if !in.Enable {
			r.Role, r.Action = s.accounts[in.BMM][in.UserName].Role, bmc.AccountDisabled
		}
		s.accounts[in.BMM][in.UserName] = r
		return r, nil
	})
	return env
}

func (s *site) outcomes(name string, removed bool) map[string]keyset.Outcome {
	list := s.st.Keysets
	if removed {
		list = s.st.RemovedKeysets
	}
	k, _ := keyset.Find(list, name)
	out := map[string]keyset.Outcome{}
	for _, b := range s.st.Cluster.BMMs {
		out[b.Name] = keyset.OutcomesFor(k, []string{b.Name})[0]
	}
	return out
}

func TestKeysetAppliedOnEveryBMC(t *testing.T) {
	s := newSite(6) // more BMMs than atOnce: two waves
	res, _ := s.run(t, api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"})
	if res.Applied != 6 || res.Failed != 0 {
		t.Fatalf("result %+v, want 6 applied", res)
	}
	for bmm, o := range s.outcomes("bmc-oncall", false) {
		if o.State != keyset.Applied || o.Role != keyset.Operator || o.Reason != "" {
			t.Errorf("%s: outcome %+v, want applied as Operator", bmm, o)
		}
		for _, user := range []string{"alice", "bob"} {
			if a := s.accounts[bmm][user]; !a.Enabled || a.Role != "Operator" {
				t.Errorf("%s: account %s is %+v, want enabled Operator", bmm, user, a)
			}
		}
	}
}

func TestKeysetOneBMCFullIsFailedOthersApplied(t *testing.T) {
	s := newSite(4)
	s.fail = func(in bmc.AccountInput, _ int) error {
		if in.BMM == "rack1-c3" && in.UserName == "bob" {
			return temporal.NewNonRetryableApplicationError("bmm rack1-c3 (BMC https://10.1.0.13): no room for account bob: the BMC's 16 accounts are taken", bmc.ErrTypeAccountLimit, nil)
		}
		return nil
	}
	res, _ := s.run(t, api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"})
	if res.Applied != 3 || res.Failed != 1 {
		t.Fatalf("result %+v, want 3 applied and 1 failed", res)
	}
	got := s.outcomes("bmc-oncall", false)
	if o := got["rack1-c3"]; o.State != keyset.Failed || !strings.Contains(o.Reason, "account bob: ") || !strings.Contains(o.Reason, "no room for account bob") {
		t.Errorf("rack1-c3: outcome %+v, want failed naming bob and the BMC's refusal", o)
	}
	if s.calls["rack1-c3"] != 2 {
		t.Errorf("rack1-c3: %d EnsureAccount calls, want 2: a BMCAccountLimit is not retried, alice still applied", s.calls["rack1-c3"])
	}
	for _, bmm := range []string{"rack1-c1", "rack1-c2", "rack1-c4"} {
		if o := got[bmm]; o.State != keyset.Applied || o.Role != keyset.Operator {
			t.Errorf("%s: outcome %+v, want applied as Operator", bmm, o)
		}
	}
}

func TestKeysetDeletedDisabledEverywhere(t *testing.T) {
	s := newSite(5)
	s.run(t, api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"})
	deleted := version.Add(time.Hour)
	s.st.Keysets, s.st.RemovedKeysets = keyset.Retire(s.st.Keysets, nil, "bmc-oncall", "ops", deleted)
	res, _ := s.run(t, api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"})
	if res.Disabled != 5 || res.Failed != 0 {
		t.Fatalf("result %+v, want 5 disabled", res)
	}
	for bmm, o := range s.outcomes("bmc-oncall", true) {
		if o.State != keyset.Disabled {
			t.Errorf("%s: outcome %+v, want disabled", bmm, o)
		}
		for _, user := range []string{"alice", "bob"} {
			if a := s.accounts[bmm][user]; a.Enabled {
				t.Errorf("%s: account %s still enabled: %+v", bmm, user, a)
			}
		}
	}
	if _, ok := keyset.Find(s.st.Keysets, "bmc-oncall"); ok {
		t.Error("the deleted keyset is still live")
	}
}

func TestKeysetRetryableErrorRetriedWithinItsBound(t *testing.T) {
	s := newSite(2)
	s.fail = func(in bmc.AccountInput, attempt int) error {
		switch {
		case in.BMM == "rack1-c1" && attempt == 1:
			return errors.New("session refused: too many sessions") // a passing moment
		case in.BMM == "rack1-c2":
			return errors.New("connection refused") // never answers
		}
		return nil
	}
	res, env := s.run(t, api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"})
	got := s.outcomes("bmc-oncall", false)
	if o := got["rack1-c1"]; o.State != keyset.Applied || s.calls["rack1-c1"] != 3 {
		t.Errorf("rack1-c1: outcome %+v after %d calls, want applied after 3 (one retried)", o, s.calls["rack1-c1"])
	}
	if o := got["rack1-c2"]; o.State != keyset.Failed || !strings.Contains(o.Reason, "connection refused") {
		t.Errorf("rack1-c2: outcome %+v, want failed with the BMC's error", o)
	}
	// Each account is tried ten times, within what ten calls may take.
	if s.calls["rack1-c2"] != 20 {
		t.Errorf("rack1-c2: %d attempts, want 10 per account", s.calls["rack1-c2"])
	}
	if took, bound := env.Now().Sub(version.Add(time.Minute)), 2*kernel.CallBound(model.Timeouts{}); took > bound {
		t.Errorf("the run took %s, over two accounts' bound %s", took, bound)
	}
	if res.Applied != 1 || res.Failed != 1 {
		t.Errorf("result %+v, want 1 applied and 1 failed", res)
	}
}

func TestKeysetNothingToDo(t *testing.T) {
	s := newSite(2)
	res, _ := s.run(t, api.KeysetInput{Cluster: "site-a", Name: "nope"})
	if !strings.Contains(res.Note, "has no keyset nope") || len(s.calls) != 0 {
		t.Errorf("a run of no keyset: %+v after %d calls, want nothing done", res, len(s.calls))
	}
	s.st.Keysets[0].Expiration = version
	res, _ = s.run(t, api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"})
	if !strings.Contains(res.Note, "expired") || len(s.calls) != 0 {
		t.Errorf("an expired keyset: %+v after %d calls, want nothing done", res, len(s.calls))
	}
}

// A newer version written while a run works (the starter's signal, or the
// ledger refusing a wave as superseded): the run ends its wave and
// continues as new, so that it applies the ledger's version.
func TestKeysetNewerVersionContinuesAsNew(t *testing.T) {
	for _, how := range []string{"signal", "refused"} {
		t.Run(how, func(t *testing.T) {
			s := newSite(8)
			env := s.env()
			// The change comes while the first wave works, whatever the
			// scheduling: from inside its first account call.
			var once sync.Once
			s.first = func() {
				once.Do(func() {
					if how == "signal" {
						env.SignalWorkflow(api.SignalKeysetChanged, nil)
						return
					}
					s.mu.Lock()
					s.st.Keysets[0].Updated = version.Add(time.Hour) // the ledger's next version
					s.mu.Unlock()
				})
			}
			env.ExecuteWorkflow(api.KeysetWorkflowName, api.KeysetInput{Cluster: "site-a", Name: "bmc-oncall"})
			continuedAsNew(t, env.GetWorkflowError(), "after the first wave")
			if n := len(s.calls); n > atOnce {
				t.Errorf("%d BMCs worked on, want the first wave's %d only", n, atOnce)
			}
		})
	}
}
