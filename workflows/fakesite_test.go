package workflows

import (
	"fmt"
	"go.temporal.io/sdk/workflow"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/image"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// fakeSite stands in for the ledger, the BMCs and the Kubernetes API in the
// SDK test environment, for every workflow test: it keeps the cluster state,
// the machines and their nodes, and records every step so tests can check
// order and overlap. The ledger activities are in fakesite_ledger_test.go,
// the Kubernetes ones in fakesite_kube_test.go, the BMC ones in
// fakesite_bmc_test.go. A scenario shapes it through the fields marked
// "set by the test".
type fakeSite struct {
	mu sync.Mutex
	st api.ClusterState

	// Set by the test: what the machines do.
	nodes       map[string]*fakeNode // by BMM
	failing     map[string]string    // BMM -> reimage error
	rebootFails map[string]bool      // BMM whose power does not come back on restart
	// resetIgnored: BMM whose BMC answers a restart and does nothing
	resetIgnored map[string]bool
	sticky       map[string]bool          // BMM whose conditions survive a reboot and a reimage
	broken       map[string]bool          // BMM whose node never gets Ready until a replace records new hardware
	power        map[string]string        // BMM -> On/Off (default On)
	running      map[string]bool          // workflow id -> running, for HolderStates
	fail         map[string]string        // activity -> non-retryable error message
	delay        map[string]time.Duration // activity -> time on the workflow clock before it returns
	slowTenants  bool                     // drains and VM shutdowns run out of time
	versioned    bool                     // reimages records "bmm@version" (the action tests)
	noBoot       map[string]bool          // BMM whose reset takes effect but which never boots again (its node stays as it was)
	lost         map[string]bool          // BMM whose reset takes effect but whose node never comes back (Unknown)
	watchFails   map[string]string        // BMM -> the BMC hint WatchReimage fails with (after delay["WatchReimage"])
	// watchHold, when set, is how long a WatchReimage with no hint holds
	// before it returns with no verdict (default: it never does; < 0: at
	// once). A mocked activity still holding when its run ends holds its
	// test environment for good: tests that run thousands do not hold.
	watchHold time.Duration
	// missingImages: image URLs the image server answers 404; imageChecks:
	// what the image preflight asked for.
	missingImages map[string]bool
	imageChecks   []image.CheckInput
	// noRoom: nodes whose pods find no room elsewhere; capacityChecks: the
	// batches the capacity guard asked about.
	noRoom         map[string]bool
	capacityChecks [][]string
	// emit, when set, receives what the lab's event log would record
	// (property tests); called with mu held.
	emit func(kind, bmm, rack string, detail map[string]any)
	// onHeal, when set, hears that a good boot ended bmm's fault (mu held).
	onHeal func(bmm string)
	// onStep, when set, hears each machine step before its effect (mu
	// held); an error fails the step (the convergence property's cuts).
	onStep func(activity, who string) error
	// afterAnswer, when set, runs after each answer, without mu: where a
	// test may cancel or signal the run.
	afterAnswer func()
	// cut, once set, fails every answer with no effect: the site as a
	// terminated or killed run no longer reaches it.
	cut atomic.Bool
	// loseAnswer, once set, loses the next answer after its effect: the
	// worker died before it reported, and the step is retried.
	loseAnswer atomic.Bool

	// Recorded.
	calls    []string // "Activity bmm-or-node" of the steps, in order
	log      []string // effects on the site, in order ("reimage rack1-c1 4.1.2")
	reimages []string // BMMs in reimage order
	forced   []bool   // Reimage Force flags in order
	ejects   []string // "bmm back|not-back" per EjectMedia, in order: was the node back on a new boot then
	drains   []kube.DrainInput
	waits    []kube.WaitReadyInput
	vmStops  []kube.ShutdownInput
	started  int // StartVMs calls
	observed int // ObserveNodes calls
	// cpObserved counts ObserveControlPlane calls; onCPObserve, when set,
	// runs before each answer with the call's number (mu held).
	cpObserved  int
	onCPObserve func(n int)
	children    []string // child workflow ids started (env)
	cordoned    map[string]bool
	shown       map[string]string // node readiness the event log last showed, by BMM
	inFlight    map[string]int    // rack -> compute reimages in flight
	overlap     bool              // compute of two racks reimaging at once
	kcpOut      int
	maxKCP      int
}

// fakeNode is a node as the fake Kubernetes API shows it.
type fakeNode struct {
	exists  bool
	ready   string
	rofs    bool
	version string
	boot    int // how many times it booted: its bootID
	// since is the boot a reimage started from; -1 when none is going on.
	since int
}

// newFakeSite places the inventory at path and records every server
// provisioned, on, Ready and uncordoned on the inventory's runtime.
func newFakeSite(t *testing.T, path string) *fakeSite {
	t.Helper()
	inv, err := model.LoadInventory(path)
	require.NoError(t, err)
	placed, err := placement.Place(inv)
	require.NoError(t, err)
	f := &fakeSite{nodes: map[string]*fakeNode{}, failing: map[string]string{}, rebootFails: map[string]bool{}, resetIgnored: map[string]bool{}, sticky: map[string]bool{},
		broken: map[string]bool{}, power: map[string]string{}, running: map[string]bool{}, fail: map[string]string{},
		noBoot: map[string]bool{}, lost: map[string]bool{}, watchFails: map[string]string{}, missingImages: map[string]bool{}, noRoom: map[string]bool{},
		delay: map[string]time.Duration{}, cordoned: map[string]bool{}, shown: map[string]string{}, inFlight: map[string]int{}}
	f.st.Cluster = model.Cluster{Name: inv.Cluster, RuntimeVersion: inv.RuntimeVersion, DetailedStatus: model.ClusterRunning}
	f.st.ImageURLTemplate = inv.ImageURL("{version}")
	f.st.Remediation = inv.Remediation.WithDefaults()
	roles := map[string]placement.Assignment{}
	for _, a := range placed {
		roles[a.Name] = a
	}
	for _, ref := range inv.Servers() {
		a := roles[ref.Server.Name]
		f.st.Cluster.BMMs = append(f.st.Cluster.BMMs, model.BMM{Name: ref.Server.Name, Rack: ref.Rack, Roles: []model.Role{a.Role},
			ManagementGroup: a.ManagementGroup, NodeName: model.NodeNameOf(ref.Server), BMC: ref.Server.BMC,
			RuntimeVersion: inv.RuntimeVersion, DetailedStatus: model.BMMProvisioned, PowerState: model.PowerOn,
			CordonStatus: model.Uncordoned, ReadyState: model.ReadyTrue})
		f.nodes[ref.Server.Name] = &fakeNode{exists: true, ready: model.ReadyTrue, version: inv.RuntimeVersion, since: -1}
		f.shown[ref.Server.Name] = events.NodeReady
	}
	return f
}

func (f *fakeSite) bmm(name string) *model.BMM {
	b, _ := f.st.Cluster.BMM(name)
	return b
}

// byNode is the BMM whose node is node.
func (f *fakeSite) byNode(node string) string {
	for _, b := range f.st.Cluster.BMMs {
		if b.NodeName == node {
			return b.Name
		}
	}
	return node
}

func (f *fakeSite) set(bmm string, mod func(n *fakeNode)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	mod(f.nodes[bmm])
}

// status is what the Kubernetes API says about bmm's node: a machine that
// is off, or broken, has no Ready node.
func (f *fakeSite) status(bmm string) kube.NodeStatus {
	n, b := f.nodes[bmm], f.bmm(bmm)
	if n == nil || b == nil {
		return kube.NodeStatus{Node: bmm}
	}
	ready := n.ready
	if f.power[bmm] == model.PowerOff || f.broken[bmm] {
		ready = model.ReadyFalse
	}
	return kube.NodeStatus{Node: b.NodeName, Exists: n.exists, Ready: ready, ReadOnlyRootFS: n.rofs, RuntimeVersion: n.version,
		BootID: bootID(bmm, n.boot)}
}

func bootID(bmm string, boot int) string { return fmt.Sprintf("%s-boot-%d", bmm, boot) }

// step logs a call and returns its injected failure, if any (mu held).
func (f *fakeSite) step(activity, who string) error {
	f.calls = append(f.calls, activity+" "+who)
	if f.onStep != nil {
		if err := f.onStep(activity, who); err != nil {
			return err
		}
	}
	if msg := f.fail[activity]; msg != "" {
		return temporal.NewNonRetryableApplicationError(msg, "Injected", nil)
	}
	return nil
}

func (f *fakeSite) logf(format string, args ...any) {
	f.log = append(f.log, fmt.Sprintf(format, args...))
}

// after is the activity's delay on the workflow clock.
func (f *fakeSite) after(activity string) func() time.Duration {
	return func() time.Duration {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.delay[activity]
	}
}

func (f *fakeSite) versions() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for _, b := range f.st.Cluster.BMMs {
		out[b.Name] = b.RuntimeVersion
	}
	return out
}

func (f *fakeSite) role(name string) model.Role {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bmm(name).Roles[0]
}

func (f *fakeSite) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeSite) leases() []lease.Lease {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]lease.Lease(nil), f.st.Leases...)
}

func (f *fakeSite) ledgerBMM(name string) model.BMM {
	f.mu.Lock()
	defer f.mu.Unlock()
	return *f.bmm(name)
}

// holdLease puts a lease in the ledger as another workflow would.
func (f *fakeSite) holdLease(t *testing.T, bmm, holder, op string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := lease.Request{BMM: bmm, Holder: holder, Operation: lease.Operation(op)}
	require.NoError(t, lease.Check(f.st.Cluster, f.st.Leases, r))
	f.st.Leases = lease.Grant(f.st.Leases, r, f.bmm(bmm).HasRole(model.RoleKCP), time.Time{})
}

// testWorkflows are the workflows every environment of the fake site
// registers, by type name. The fake imports no workflow package; a family's
// tests add the workflows they start by name (an upgrade's children, the
// action a test runs) in an init.
var testWorkflows = map[string]any{}

// register registers testWorkflows, the activities and the fake's answers
// to all of them.
func (f *fakeSite) register(env *testsuite.TestWorkflowEnvironment) {
	for name, fn := range testWorkflows {
		env.RegisterWorkflowWithOptions(fn, workflow.RegisterOptions{Name: name})
	}
	env.RegisterActivity(la)
	env.RegisterActivity(ka)
	env.RegisterActivity(ba)
	env.RegisterActivity(ia)
	f.mockLedger(env)
	f.mockImages(env)
	f.mockKube(env)
	f.mockBMC(env)
	env.SetOnActivityStartedListener(f.activityStarted)
}

// answer mocks activity with fn, after the delay the test set for it.
func (f *fakeSite) answer(env *testsuite.TestWorkflowEnvironment, activity any, name string, fn any) {
	f.answerAfter(env, activity, f.after(name), fn)
}

// answerAfter mocks activity with fn, after the delay after says.
func (f *fakeSite) answerAfter(env *testsuite.TestWorkflowEnvironment, activity any, after func() time.Duration, fn any) {
	args := make([]any, reflect.TypeOf(activity).NumIn()) // the context and the inputs
	for i := range args {
		args[i] = mock.Anything
	}
	env.OnActivity(activity, args...).AfterFn(after).Return(f.guard(fn))
}

// guard wraps an answer: once the site is cut off it fails without effect;
// afterAnswer runs after it.
func (f *fakeSite) guard(fn any) any {
	v := reflect.ValueOf(fn)
	t := v.Type()
	return reflect.MakeFunc(t, func(in []reflect.Value) []reflect.Value {
		if f.cut.Load() {
			f.unreached(in)
			out := make([]reflect.Value, t.NumOut())
			for i := range out {
				out[i] = reflect.Zero(t.Out(i))
			}
			err := temporal.NewNonRetryableApplicationError("the run was terminated: the site is out of its reach", "Injected", nil)
			out[len(out)-1] = reflect.ValueOf(&err).Elem()
			return out
		}
		out := v.Call(in)
		if f.loseAnswer.Swap(false) {
			err := temporal.NewApplicationError("the worker died before it reported the step", "Injected")
			out[len(out)-1] = reflect.ValueOf(&err).Elem()
		}
		if f.afterAnswer != nil {
			f.afterAnswer()
		}
		return out
	}).Interface()
}

func upgradeInput(strategy model.UpdateStrategy) api.UpgradeInput {
	return api.UpgradeInput{Cluster: "site-a", TargetVersion: "4.2.0", UpdateStrategy: strategy}
}

func intp(i int) *int { return &i }
