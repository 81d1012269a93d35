package kube

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"
	"k8s.io/client-go/kubernetes"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/kubeapi/kubeapitest"
	"github.com/rackroll/rackroll/internal/lab/kubesim"
	"github.com/rackroll/rackroll/internal/model"
)

// One real apiserver serves the package's integration tests; each test
// gets its own simulated machines and tenant namespace.
var siteSeq atomic.Int32

func TestMain(m *testing.M) { kubeapitest.Main(m) }

// site is a simulated cluster plus the activities pointed at it through
// the kubeconfig file, as a worker would be.
type site struct {
	sim    *kubesim.Sim
	log    *events.Log
	client kubernetes.Interface
	acts   *Activities
	env    *testsuite.TestActivityEnvironment
	ns     string
	c0, c1 string // two compute machines (BMM name = node name)
}

func newSite(t *testing.T, drain time.Duration) *site {
	t.Helper()
	api := kubeapitest.Server(t)
	p := fmt.Sprintf("k%d", siteSeq.Add(1))
	s := &site{log: events.New(nil), client: api.Client(), ns: p + "-tenant", c0: p + "-c0", c1: p + "-c1"}
	ms := []kubesim.Machine{
		{Name: s.c0, Rack: p + "-rack1", Role: "compute", RuntimeVersion: "4.1.2"},
		{Name: s.c1, Rack: p + "-rack1", Role: "compute", RuntimeVersion: "4.1.2"},
	}
	s.sim = kubesim.New(s.client, ms, kubesim.Options{Events: s.log, Drain: drain, Tick: 50 * time.Millisecond,
		Heartbeat: time.Second, Workloads: true, Namespace: s.ns})
	// Setting up and settling are bounded; the simulator runs until the test ends.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := s.sim.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.sim.Run(runCtx); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	if err := s.sim.WaitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	s.acts = New(Kubeconfig(api.Kubeconfig()), Options{PollInterval: 50 * time.Millisecond,
		HeartbeatInterval: 100 * time.Millisecond, EvictRetryDelay: 200 * time.Millisecond})
	var suite testsuite.WorkflowTestSuite
	s.env = suite.NewTestActivityEnvironment()
	s.env.RegisterActivity(s.acts)
	return s
}

// run executes an activity in the SDK's test environment and decodes its
// result into out (nil for none).
func (s *site) run(t *testing.T, out any, fn any, args ...any) {
	t.Helper()
	val, err := s.env.ExecuteActivity(fn, args...)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := val.Get(out); err != nil {
			t.Fatal(err)
		}
	}
}

// eventually polls cond; the deadline only guards against hangs.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	kubeapitest.Eventually(t, what, cond)
}

// readNode runs ReadNode.
func (s *site) readNode(t *testing.T, node string) NodeStatus {
	t.Helper()
	var st NodeStatus
	s.run(t, &st, s.acts.ReadNode, node, labelSource)
	return st
}

// labelSource reads the version from the label the lab's kubelets set at
// registration (and its relabelling agent keeps current).
var labelSource = model.NodeVersionSource{Label: model.LabelRuntimeVersion}
