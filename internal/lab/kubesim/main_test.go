package kubesim

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/kubeapi/kubeapitest"
)

// One apiserver serves the whole package; each test runs its own Sim
// with distinct machines and tenant namespace.
var simCount atomic.Int32

func TestMain(m *testing.M) { kubeapitest.Main(m) }

func needAPI(t *testing.T) kubernetes.Interface {
	return kubeapitest.Server(t).Client()
}

// testSite is a running Sim over fresh machines.
type testSite struct {
	*Sim
	client kubernetes.Interface
	log    *events.Log
	ns     string
	prefix string
}

// startSite creates machines named <prefix>-<suffix> for the given roles
// ("compute", "management:a", ...), sets them up and runs the Sim until
// the test ends.
func startSite(t *testing.T, opts Options, roles ...string) *testSite {
	t.Helper()
	client := needAPI(t)
	n := simCount.Add(1)
	prefix := fmt.Sprintf("s%d", n)
	var ms []Machine
	for i, r := range roles {
		// "management:a" has a group; "compute~0.6" a tenant load.
		r, load, _ := strings.Cut(r, "~")
		role, group := r, ""
		if len(r) > 2 && r[len(r)-2] == ':' {
			role, group = r[:len(r)-2], r[len(r)-1:]
		}
		l, _ := strconv.ParseFloat(load, 64)
		ms = append(ms, Machine{Name: fmt.Sprintf("%s-%s%d", prefix, role, i), Rack: prefix + "-rack1", Role: role,
			ManagementGroup: group, RuntimeVersion: "4.1.2", TenantLoad: l})
	}
	log := events.New(nil)
	opts.Events = log
	opts.Namespace = prefix + "-tenant"
	if opts.Tick == 0 {
		opts.Tick = 50 * time.Millisecond
	}
	sim := New(client, ms, opts)
	// The simulator runs until the test ends; only setting up and settling
	// are bounded. (Running it under the setup deadline stopped it mid-test
	// when a loaded machine took most of that deadline to settle.)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	began := time.Now()
	if err := sim.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	if len(ms) > 100 {
		t.Logf("Setup of %d machines: %v", len(ms), time.Since(began).Round(time.Millisecond))
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { sim.Run(runCtx); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	if err := sim.WaitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	return &testSite{Sim: sim, client: client, log: log, ns: opts.Namespace, prefix: prefix}
}

func (s *testSite) node(t *testing.T, name string) *corev1.Node {
	t.Helper()
	n, err := s.client.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// eventually polls cond until it holds; the deadline only guards
// against hangs, it is not a timing assertion.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	kubeapitest.Eventually(t, what, cond)
}

func nodeCondition(n *corev1.Node, typ corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == typ {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}
