package wftest

import (
	"fmt"
	"maps"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/image"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

// FakeSite stands in for the ledger, the BMCs and the Kubernetes API in the
// SDK test environment, for every workflow test: it keeps the cluster state,
// the machines and their nodes, and records every step so tests can check
// order and overlap. The ledger activities are in fakesite_ledger_test.go,
// the Kubernetes ones in fakesite_kube_test.go, the BMC ones in
// fakesite_bmc_test.go. A scenario shapes it through the fields marked
// "set by the test".
type FakeSite struct {
	Mu sync.Mutex
	St api.ClusterState

	// Set by the test: what the machines do.
	Nodes       map[string]*FakeNode // by BMM
	Failing     map[string]string    // BMM -> reimage error
	RebootFails map[string]bool      // BMM whose power does not come back on restart
	// resetIgnored: BMM whose BMC answers a restart and does nothing
	ResetIgnored map[string]bool
	Sticky       map[string]bool          // BMM whose conditions survive a reboot and a reimage
	Broken       map[string]bool          // BMM whose node never gets Ready until a replace records new hardware
	Power        map[string]string        // BMM -> On/Off (default On)
	running      map[string]bool          // workflow id -> running, for HolderStates
	Fail         map[string]string        // activity -> non-retryable error message
	Delay        map[string]time.Duration // activity -> time on the workflow clock before it returns
	SlowTenants  bool                     // drains and VM shutdowns run out of time
	LastWorker   map[string]string        // BMM -> the last Ready rackroll worker pod its drain keeps (and fails on)
	versioned    bool                     // reimages records "bmm@version" (the action tests)
	NoBoot       map[string]bool          // BMM whose reset takes effect but which never boots again (its node stays as it was)
	Lost         map[string]bool          // BMM whose reset takes effect but whose node never comes back (Unknown)
	WatchFails   map[string]string        // BMM -> the BMC hint WatchReimage fails with (after delay["WatchReimage"])
	// watchHold, when set, is how long a WatchReimage with no hint holds
	// before it returns with no verdict (default: it never does; < 0: at
	// once). A mocked activity still holding when its run ends holds its
	// test environment for good: tests that run thousands do not hold.
	WatchHold time.Duration
	// missingImages: image URLs the image server answers 404; imageChecks:
	// what the image preflight asked for.
	MissingImages map[string]bool
	ImageChecks   []image.CheckInput
	// noRoom: nodes whose pods find no room elsewhere; capacityChecks: the
	// batches the capacity guard asked about.
	NoRoom         map[string]bool
	CapacityChecks [][]string
	// emit, when set, receives what the lab's event log would record
	// (property tests); called with mu held.
	Emit func(kind, bmm, rack string, detail map[string]any)
	// onHeal, when set, hears that a good boot ended bmm's fault (mu held).
	OnHeal func(bmm string)
	// onStep, when set, hears each machine step before its effect (mu
	// held); an error fails the step (the convergence property's cuts).
	OnStep func(activity, who string) error
	// afterAnswer, when set, runs after each answer, without mu: where a
	// test may cancel or signal the run.
	AfterAnswer func()
	// cut, once set, fails every answer with no effect: the site as a
	// terminated or killed run no longer reaches it.
	Cut atomic.Bool
	// loseAnswer, once set, loses the next answer after its effect: the
	// worker died before it reported, and the step is retried.
	LoseAnswer atomic.Bool

	// Firmware: what each BMM's FirmwareInventory shows (FirmwareOf);
	// FirmwareFails: BMM -> why its updates end in Exception.
	Firmware      map[string]*firmware.Server
	FirmwareFails map[string]string

	// StaleAcquires: how many of the next lease requests made on a live
	// observation the ledger refuses as stale (a worker restarted between
	// the observation and the ask).
	StaleAcquires int

	// Recorded.
	calls    []string // "Activity bmm-or-node" of the steps, in order
	Log      []string // effects on the site, in order ("reimage rack1-c1 4.1.2")
	Reimages []string // BMMs in reimage order
	// KeysetRuns are the keysets' runs started (fakesite_keysets.go).
	KeysetRuns []api.KeysetInput
	// Rechecked are the BMCs the BMC keysets' runs were asked to check
	// again (RecheckBMCAccounts).
	Rechecked []ledger.KeysInput
	Forced    []bool   // Reimage Force flags in order
	Ejects    []string // "bmm back|not-back" per EjectMedia, in order: was the node back on a new boot then
	Drains    []kube.DrainInput
	Waits     []kube.WaitReadyInput
	VMStops   []kube.ShutdownInput
	// FirmwareInputs are the ApplyFirmware inputs, in order;
	// StagedInputs the FinishStagedFirmware ones; FirmwareHostStarts,
	// by BMM, the host starts firmware updates made.
	FirmwareInputs     []bmc.ApplyFirmwareInput
	StagedInputs       []bmc.FinishStagedFirmwareInput
	FirmwareHostStarts map[string]int
	fwStaged           map[string][]string // BMM -> components staged, not yet installed
	Started            int                 // StartVMs calls
	Observed           int                 // ObserveNodes calls
	// cpObserved counts ObserveControlPlane calls; onCPObserve, when set,
	// runs before each answer with the call's number (mu held).
	CPObserved  int
	OnCPObserve func(n int)
	Children    []string // child workflow ids started (env)
	Cordoned    map[string]bool
	shown       map[string]string // node readiness the event log last showed, by BMM
	inFlight    map[string]int    // rack -> compute reimages in flight
	Overlap     bool              // compute of two racks reimaging at once
	kcpOut      int
	MaxKCP      int
}

// FakeNode is a node as the fake Kubernetes API shows it.
type FakeNode struct {
	Exists  bool
	Ready   string
	Rofs    bool
	Version string
	// Labels, when set, are what the node shows instead of the ledger's
	// labels (a Node its kubelet registered anew).
	Labels map[string]string
	boot   int // how many times it booted: its bootID
	// since is the boot a reimage started from; -1 when none is going on.
	since int
}

// NewFakeSite places the inventory at path and records every server
// provisioned, on, Ready and uncordoned on the inventory's runtime.
func NewFakeSite(t *testing.T, path string) *FakeSite {
	t.Helper()
	inv, err := model.LoadInventory(path)
	require.NoError(t, err)
	placed, err := placement.Place(inv)
	require.NoError(t, err)
	f := &FakeSite{Nodes: map[string]*FakeNode{}, Failing: map[string]string{}, RebootFails: map[string]bool{}, ResetIgnored: map[string]bool{}, Sticky: map[string]bool{},
		Broken: map[string]bool{}, Power: map[string]string{}, running: map[string]bool{}, Fail: map[string]string{},
		NoBoot: map[string]bool{}, Lost: map[string]bool{}, WatchFails: map[string]string{}, MissingImages: map[string]bool{}, NoRoom: map[string]bool{},
		Delay: map[string]time.Duration{}, FirmwareFails: map[string]string{}, FirmwareHostStarts: map[string]int{}, fwStaged: map[string][]string{}, Cordoned: map[string]bool{}, shown: map[string]string{}, inFlight: map[string]int{}}
	f.St.Cluster = model.Cluster{Name: inv.Cluster, RuntimeVersion: inv.RuntimeVersion, DetailedStatus: model.ClusterRunning}
	f.St.ImageURLTemplate = inv.ImageURL("{version}")
	f.St.Remediation = inv.Remediation.WithDefaults()
	roles := map[string]placement.Assignment{}
	for _, a := range placed {
		roles[a.Name] = a
	}
	for _, ref := range inv.Servers() {
		a := roles[ref.Server.Name]
		f.St.Cluster.BMMs = append(f.St.Cluster.BMMs, model.BMM{Name: ref.Server.Name, Rack: ref.Rack, Roles: []model.Role{a.Role},
			ManagementGroup: a.ManagementGroup, NodeName: model.NodeNameOf(ref.Server), BMC: ref.Server.BMC,
			RuntimeVersion: inv.RuntimeVersion, DetailedStatus: model.BMMProvisioned, PowerState: model.PowerOn,
			CordonStatus: model.Uncordoned, ReadyState: model.ReadyTrue})
		f.Nodes[ref.Server.Name] = &FakeNode{Exists: true, Ready: model.ReadyTrue, Version: inv.RuntimeVersion, since: -1}
		f.shown[ref.Server.Name] = events.NodeReady
	}
	return f
}

func (f *FakeSite) Bmm(name string) *model.BMM {
	b, _ := f.St.Cluster.BMM(name)
	return b
}

// byNode is the BMM whose node is node.
func (f *FakeSite) byNode(node string) string {
	for _, b := range f.St.Cluster.BMMs {
		if b.NodeName == node {
			return b.Name
		}
	}
	return node
}

func (f *FakeSite) Set(bmm string, mod func(n *FakeNode)) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	mod(f.Nodes[bmm])
}

// Status is what the Kubernetes API says about bmm's node: a machine that
// is off, or broken, has no Ready node.
func (f *FakeSite) Status(bmm string) kube.NodeStatus {
	n, b := f.Nodes[bmm], f.Bmm(bmm)
	if n == nil || b == nil {
		return kube.NodeStatus{Node: bmm}
	}
	ready := n.Ready
	if f.Power[bmm] == model.PowerOff || f.Broken[bmm] {
		ready = model.ReadyFalse
	}
	labels := n.Labels
	if labels == nil {
		labels = model.ManagedNodeLabels(*b) // as the ledger labelled it
	}
	return kube.NodeStatus{Node: b.NodeName, Exists: n.Exists, Ready: ready, ReadOnlyRootFS: n.Rofs, RuntimeVersion: n.Version,
		BootID: BootID(bmm, n.boot), Labels: maps.Clone(labels)}
}

func BootID(bmm string, boot int) string { return fmt.Sprintf("%s-boot-%d", bmm, boot) }

// step logs a call and returns its injected failure, if any (mu held).
func (f *FakeSite) step(activity, who string) error {
	f.calls = append(f.calls, activity+" "+who)
	if f.OnStep != nil {
		if err := f.OnStep(activity, who); err != nil {
			return err
		}
	}
	if msg := f.Fail[activity]; msg != "" {
		return temporal.NewNonRetryableApplicationError(msg, "Injected", nil)
	}
	return nil
}

func (f *FakeSite) logf(format string, args ...any) {
	f.Log = append(f.Log, fmt.Sprintf(format, args...))
}

// after is the activity's delay on the workflow clock.
func (f *FakeSite) after(activity string) func() time.Duration {
	return func() time.Duration {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		return f.Delay[activity]
	}
}

func (f *FakeSite) Versions() map[string]string {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	out := map[string]string{}
	for _, b := range f.St.Cluster.BMMs {
		out[b.Name] = b.RuntimeVersion
	}
	return out
}

func (f *FakeSite) Role(name string) model.Role {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return f.Bmm(name).Roles[0]
}

func (f *FakeSite) CallLog() []string {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *FakeSite) Leases() []lease.Lease {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return append([]lease.Lease(nil), f.St.Leases...)
}

func (f *FakeSite) LedgerBMM(name string) model.BMM {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return *f.Bmm(name)
}

// HoldLease puts a lease in the ledger as another workflow would.
func (f *FakeSite) HoldLease(t *testing.T, bmm, holder, op string) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	r := lease.Request{BMM: bmm, Holder: holder, Operation: lease.Operation(op)}
	require.NoError(t, lease.Check(f.St.Cluster, f.St.Leases, r))
	f.St.Leases = lease.Grant(f.St.Leases, r, f.Bmm(bmm).HasRole(model.RoleKCP), time.Time{})
}

// Workflows are the workflows every environment of the fake site
// registers, by type name. The fake imports no workflow package; a family's
// tests add the workflows they start by name (an upgrade's children, the
// action a test runs) in an init.
var Workflows = map[string]any{}

// Register registers Workflows, the activities and the fake's answers
// to all of them.
func (f *FakeSite) Register(env *testsuite.TestWorkflowEnvironment) {
	for name, fn := range Workflows {
		env.RegisterWorkflowWithOptions(fn, workflow.RegisterOptions{Name: name})
	}
	if _, ok := Workflows[api.KeysetWorkflowName]; !ok {
		env.RegisterWorkflowWithOptions(f.keysetRun, workflow.RegisterOptions{Name: api.KeysetWorkflowName})
	}
	env.RegisterActivity(la)
	env.RegisterActivity(ka)
	env.RegisterActivity(ba)
	env.RegisterActivity(ia)
	f.mockLedger(env)
	f.mockImages(env)
	f.mockKube(env)
	f.mockBMC(env)
	f.mockFirmware(env)
	f.mockKeys(env)
	f.mockPages(env)
	env.SetOnActivityStartedListener(f.ActivityStarted)
}

// answer mocks activity with fn, after the delay the test set for it.
func (f *FakeSite) answer(env *testsuite.TestWorkflowEnvironment, activity any, name string, fn any) {
	f.answerAfter(env, activity, f.after(name), fn)
}

// answerAfter mocks activity with fn, after the delay after says.
func (f *FakeSite) answerAfter(env *testsuite.TestWorkflowEnvironment, activity any, after func() time.Duration, fn any) {
	args := make([]any, reflect.TypeOf(activity).NumIn()) // the context and the inputs
	for i := range args {
		args[i] = mock.Anything
	}
	env.OnActivity(activity, args...).AfterFn(after).Return(f.guard(fn))
}

// guard wraps an answer: once the site is cut off it fails without effect;
// afterAnswer runs after it.
func (f *FakeSite) guard(fn any) any {
	v := reflect.ValueOf(fn)
	t := v.Type()
	return reflect.MakeFunc(t, func(in []reflect.Value) []reflect.Value {
		if f.Cut.Load() {
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
		if f.LoseAnswer.Swap(false) {
			err := temporal.NewApplicationError("the worker died before it reported the step", "Injected")
			out[len(out)-1] = reflect.ValueOf(&err).Elem()
		}
		if f.AfterAnswer != nil {
			f.AfterAnswer()
		}
		return out
	}).Interface()
}

func UpgradeInput(strategy model.UpdateStrategy) api.UpgradeInput {
	return api.UpgradeInput{Cluster: "site-a", TargetVersion: "4.2.0", UpdateStrategy: strategy}
}

func Intp(i int) *int { return &i }
