package keysets

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// nodeSite is site with BMM keysets and nodes: the ledger records a
// node's outcome under every BMM keyset of the set, refusing a set it no
// longer has (as the real one, keyset.Wanted at the run's time); each
// node holds the report it was last given; nodeFail answers a node's
// activity instead.
type nodeSite struct {
	*site
	held     map[string]keyset.NodeReport
	calls    map[string]int
	order    []string // nodes in the order their activity started
	inFlight int
	most     int
	nodeFail func(in kube.NodeKeysInput, attempt int) error
}

func newNodeSite(n int) *nodeSite {
	s := &nodeSite{site: newSite(n), held: map[string]keyset.NodeReport{}, calls: map[string]int{}}
	s.st.Keysets = append(s.st.Keysets,
		bmmKeyset("oncall", keyset.Superuser, "alice", "SHA256:a", "bob", "SHA256:b"),
		bmmKeyset("night", keyset.Standard, "carol", "SHA256:c"))
	for i := range s.st.Cluster.BMMs {
		s.st.Cluster.BMMs[i].NodeName = "node-" + s.st.Cluster.BMMs[i].Name
	}
	return s
}

// bmmKeyset is a BMM keyset as a redacted ledger shows it: fingerprints.
func bmmKeyset(name string, p keyset.Privilege, userFP ...string) keyset.Keyset {
	k := keyset.Keyset{Spec: keyset.Spec{Name: name, Kind: keyset.KindBMM, PrivilegeLevel: p, Expiration: version.Add(48 * time.Hour)},
		Created: version, Updated: version}
	for i := 0; i < len(userFP); i += 2 {
		k.Users = append(k.Users, keyset.User{Name: userFP[i], KeyType: "ssh-ed25519", Fingerprint: userFP[i+1]})
	}
	return k
}

// recordNodes is the ledger's keyset-outcomes for the nodes (s.mu held).
func (s *site) recordNodes(r api.KeysetOutcomesRequest) error {
	if keyset.Wanted(s.st.Keysets, r.At) != *r.Nodes {
		return temporal.NewNonRetryableApplicationError("nodes: superseded", ledger.ErrLeaseRejected, nil)
	}
	for i, k := range s.st.Keysets {
		switch {
		case k.Kind != keyset.KindBMM:
		case k.Expired(r.At):
			s.st.Keysets[i], _ = keyset.Record(k, k.Updated, keyset.RemovedFrom(r.Outcomes))
		default:
			s.st.Keysets[i], _ = keyset.Record(k, k.Updated, r.Outcomes)
		}
	}
	return nil
}

// env is site's environment with the node activity too.
func (s *nodeSite) env() *testsuite.TestWorkflowEnvironment {
	env := s.site.env()
	env.OnActivity(ka.ApplyNodeKeys, mock.Anything, mock.Anything).Return(func(_ context.Context, in kube.NodeKeysInput) (kube.NodeKeysResult, error) {
		s.mu.Lock()
		s.calls[in.Node]++
		s.order = append(s.order, in.Node)
		s.inFlight++
		s.most = max(s.most, s.inFlight)
		attempt := s.calls[in.Node]
		s.mu.Unlock()
		defer func() { s.mu.Lock(); s.inFlight--; s.mu.Unlock() }()
		if s.nodeFail != nil {
			if err := s.nodeFail(in, attempt); err != nil {
				return kube.NodeKeysResult{}, err
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if keyset.Wanted(s.st.Keysets, in.At) != in.Want {
			return kube.NodeKeysResult{}, temporal.NewNonRetryableApplicationError("superseded", kube.ErrKeysetSuperseded, nil)
		}
		s.held[in.Node] = in.Want
		return kube.NodeKeysResult{Node: in.Node, Report: in.Want}, nil
	})
	return env
}

func (s *nodeSite) run(t *testing.T) (api.KeysetResult, *testsuite.TestWorkflowEnvironment) {
	t.Helper()
	env := s.env()
	env.ExecuteWorkflow(api.KeysetWorkflowName, api.KeysetInput{Cluster: "site-a", Nodes: true})
	return result(t, env, "KeysetWorkflow (nodes)"), env
}

// Every node gets the whole set (both BMM keysets' users, not the BMC
// keyset's accounts) in waves of atOnce; each node's outcome is recorded
// under both keysets; a node that is down is recorded failed with its
// reason, not retried, and the others go on.
func TestBMMKeysetsAppliedToEveryNode(t *testing.T) {
	s := newNodeSite(6)
	down := "node-rack1-c2"
	s.nodeFail = func(in kube.NodeKeysInput, _ int) error {
		if in.Node == down {
			return temporal.NewNonRetryableApplicationError("node "+down+" did not run its keyset pod within 58s (it never started: node "+down+" Ready=Unknown (NodeStatusUnknown), phase Pending); the node keeps the users it had",
				kube.ErrKeysetPodNotRun, nil)
		}
		return nil
	}
	res, _ := s.run(t)
	if res.Applied != 5 || res.Failed != 1 {
		t.Fatalf("result %+v, want 5 applied and 1 failed", res)
	}
	want := keyset.Wanted(s.st.Keysets, version.Add(time.Minute))
	if want.Users != 3 {
		t.Fatalf("the set has %d users, want 3 (alice, bob, carol)", want.Users)
	}
	for _, b := range s.st.Cluster.BMMs {
		node := "node-" + b.Name
		if node != down && s.held[node] != want {
			t.Errorf("%s holds %+v, want %+v", node, s.held[node], want)
		}
		for _, name := range []string{"oncall", "night"} {
			k, _ := keyset.Find(s.st.Keysets, name)
			o := keyset.OutcomesFor(k, []string{b.Name})[0]
			switch {
			case node == down && (o.State != keyset.Failed || o.Reason == "" || !strings.Contains(o.Reason, "did not run its keyset pod")):
				t.Errorf("%s %s: %+v, want failed with the reason", name, b.Name, o)
			case node != down && o.State != keyset.Applied:
				t.Errorf("%s %s: %+v, want applied", name, b.Name, o)
			}
		}
	}
	if s.calls[down] != 1 {
		t.Errorf("the node that is down was tried %d times, want once (not retried)", s.calls[down])
	}
	if s.most > atOnce {
		t.Errorf("%d nodes at once, want at most %d", s.most, atOnce)
	}
	if first := s.order[:atOnce]; slices.Contains(first, "node-rack1-c5") || slices.Contains(first, "node-rack1-c6") {
		t.Errorf("the second wave started before the first ended: %v", s.order)
	}
	if k, _ := keyset.Find(s.st.Keysets, "bmc-oncall"); len(k.Outcomes) != 0 {
		t.Errorf("the BMC keyset got node outcomes: %+v", k.Outcomes)
	}
}

// A retryable error (the API busy) is retried and the node applied; with
// no BMM keyset at all, every node is given the empty set (rackroll's
// users removed) and nothing is recorded under any keyset.
func TestBMMKeysetsRetriedAndEmptySet(t *testing.T) {
	s := newNodeSite(2)
	s.nodeFail = func(in kube.NodeKeysInput, attempt int) error {
		if in.Node == "node-rack1-c1" && attempt < 3 {
			return fmt.Errorf("create keyset pod: the server is currently unable to handle the request")
		}
		return nil
	}
	if res, _ := s.run(t); res.Applied != 2 || s.calls["node-rack1-c1"] != 3 {
		t.Fatalf("result %+v after %d attempts", res, s.calls["node-rack1-c1"])
	}

	s = newNodeSite(2)
	s.st.Keysets = s.st.Keysets[:1] // the BMC keyset only
	res, _ := s.run(t)
	if res.Applied != 2 || s.held["node-rack1-c1"] != keyset.Report(nil) {
		t.Fatalf("result %+v, held %+v, want the empty set applied", res, s.held)
	}
}

// A BMM keyset changed while the first wave runs (the ledger's set then
// differs: the activity finds it superseded) or signalled: the run ends
// its wave and continues as new; the next run applies the new set to
// every node.
func TestBMMKeysetsNewerSetContinuesAsNew(t *testing.T) {
	for _, how := range []string{"superseded", "signal"} {
		t.Run(how, func(t *testing.T) {
			s := newNodeSite(8)
			env := s.env()
			var once sync.Once
			s.nodeFail = func(kube.NodeKeysInput, int) error {
				once.Do(func() {
					if how == "signal" {
						env.SignalWorkflow(api.SignalKeysetChanged, nil)
					}
					k := bmmKeyset("night", keyset.Standard, "carol", "SHA256:c", "dave", "SHA256:d")
					k.Updated = version.Add(30 * time.Second)
					s.mu.Lock()
					s.st.Keysets[2] = k
					s.mu.Unlock()
				})
				return nil
			}
			env.ExecuteWorkflow(api.KeysetWorkflowName, api.KeysetInput{Cluster: "site-a", Nodes: true})
			continuedAsNew(t, env.GetWorkflowError(), "after the first wave")
			if n := len(s.calls); n > atOnce {
				t.Errorf("%d nodes worked on, want the first wave's %d only", n, atOnce)
			}
			s.nodeFail = nil
			res, _ := s.run(t) // the continued run
			want := keyset.Wanted(s.st.Keysets, version.Add(time.Minute))
			if want.Users != 4 || res.Applied != 8 {
				t.Fatalf("the continued run: %+v, the set %+v", res, want)
			}
			for _, b := range s.st.Cluster.BMMs {
				k, _ := keyset.Find(s.st.Keysets, "night")
				if o := keyset.OutcomesFor(k, []string{b.Name})[0]; s.held["node-"+b.Name] != want || o.State != keyset.Applied {
					t.Errorf("%s holds %+v (%+v), want the newer set applied", b.Name, s.held["node-"+b.Name], o)
				}
			}
		})
	}
}
