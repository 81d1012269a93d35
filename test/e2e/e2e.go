// Package e2e starts a whole rackroll site for end-to-end tests: the
// Temporal dev server (bin/temporal), the lab (real kube-apiserver and
// Redfish BMCs) and a worker in-process, all on loopback, and registers the
// cluster. Everything stops when the test ends.
package e2e

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/devserver"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/rackroll/rackroll/worker/wiring"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
)

// Options tune Start.
type Options struct {
	// Timings of the simulated hardware (zero: fast test defaults).
	Timings lab.Timings
	// Mutate edits the inventory before the lab starts (faults, sizes).
	Mutate func(*model.Inventory)
	// Worker tunes the in-process worker (nil: fast polling).
	Worker *wiring.Options
	// StartWorker, when set, starts the worker instead, the test's own way
	// (a subprocess it can kill); it runs before the cluster is registered.
	StartWorker func(*Env)
	// Restartable keeps the dev server's sqlite file and port, so
	// RestartServer can restart it as an operator would.
	Restartable bool
	// Drainage shortens how often the server re-checks whether a worker
	// deployment version is drained (devserver.Options.Drainage): the
	// self-upgrade tests (test/selfupgrade).
	Drainage time.Duration
	// DataConverter and FailureConverter, when set, are used by the client
	// and so by the worker (payload codec tests); nil is the SDK default.
	DataConverter    converter.DataConverter
	FailureConverter converter.FailureConverter
	// Alongside makes this site another of that env's Temporal: its own
	// lab and cluster, the same dev server, client and worker (a fleet of
	// sites, test/fleet). Restartable and StartWorker do not apply.
	Alongside *Env
}

// Env is a running site.
type Env struct {
	T          testing.TB
	Server     *devserver.Server
	Client     client.Client
	Lab        *lab.Lab
	Inventory  *model.Inventory // the out-inventory pointing at the lab
	InvPath    string
	EventsPath string
	Worker     worker.Worker // the in-process worker; nil with Options.StartWorker
	Cluster    string
	Dir        string // the test's scratch directory: lab, events, inventory

	serverOpts devserver.Options // how to start the dev server again
}

// Start brings the site up and registers the cluster. It skips under
// -short (it needs bin/ from make tools).
func Start(t testing.TB, inventory string, opts Options) *Env {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: starts the dev server and the lab")
	}
	ctx := context.Background()
	inv, err := model.LoadInventory(inventory)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Mutate != nil {
		opts.Mutate(inv)
	}
	dir := t.TempDir()
	e := &Env{T: t, Cluster: inv.Cluster, Dir: dir, EventsPath: filepath.Join(dir, "events.jsonl"), InvPath: filepath.Join(dir, "lab.yaml")}
	// Registered first, so it runs last: the lab has written its whole log.
	t.Cleanup(e.Dump)
	if opts.Restartable {
		// The port is the one the first start got (RestartServer reuses
		// it): chosen by devserver.Start, which tries others if it is taken.
		e.serverOpts.DBFile = filepath.Join(dir, "temporal.db")
	}
	// The dev server and the lab start side by side: neither needs the
	// other until the worker starts, and both spend their start waiting.
	e.serverOpts.Drainage = opts.Drainage
	serverUp := make(chan error, 1)
	go func() {
		var err error
		if opts.Alongside != nil {
			serverUp <- nil
			return
		}
		e.Server, err = devserver.Start(ctx, e.serverOpts)
		serverUp <- err
	}()
	timings := opts.Timings
	if timings == (lab.Timings{}) {
		timings = lab.FastTimings()
	}
	e.Lab, err = lab.Start(ctx, lab.Options{Inventory: inv, Dir: filepath.Join(dir, "lab"), EventsPath: e.EventsPath, Timings: timings})
	serverErr := <-serverUp
	if serverErr == nil && opts.Restartable {
		_, port, _ := net.SplitHostPort(e.Server.Address)
		e.serverOpts.Port, _ = strconv.Atoi(port)
	}
	if opts.Alongside != nil {
		e.Server, e.Client, e.Worker = opts.Alongside.Server, opts.Alongside.Client, opts.Alongside.Worker
	} else if e.Server != nil {
		// The closure reads e.Server at cleanup time: a restart replaces it.
		t.Cleanup(func() { e.Server.Stop() })
	}
	if e.Lab != nil {
		t.Cleanup(e.Lab.Stop)
	}
	if err := errors.Join(serverErr, err); err != nil {
		t.Fatal(err)
	}
	if err := e.Lab.WriteOutInventory(e.InvPath); err != nil {
		t.Fatal(err)
	}
	if e.Inventory, err = model.LoadInventory(e.InvPath); err != nil {
		t.Fatal(err)
	}
	if opts.Alongside != nil {
		e.Register()
		return e
	}
	if opts.DataConverter != nil || opts.FailureConverter != nil {
		e.Client, err = client.Dial(client.Options{HostPort: e.Server.Address,
			DataConverter: opts.DataConverter, FailureConverter: opts.FailureConverter})
	} else {
		e.Client, err = e.Server.Client()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Client.Close)
	if opts.StartWorker != nil {
		opts.StartWorker(e)
	} else {
		e.StartWorker(cmp.Or(opts.Worker, &wiring.Options{PollInterval: 200 * time.Millisecond, BMCPowerOnTimeout: 15 * time.Second}))
	}
	e.Register()
	return e
}

// DevServer starts a bare Temporal dev server (no lab, no worker) and
// returns a client of it; both stop when the test ends.
func DevServer(tb testing.TB) client.Client {
	tb.Helper()
	srv, err := devserver.Start(context.Background(), devserver.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(srv.Stop)
	c, err := srv.Client()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	return c
}

// StartWorker runs an in-process worker.
func (e *Env) StartWorker(opts *wiring.Options) worker.Worker {
	w := wiring.New(e.Client, *opts)
	if err := w.Start(); err != nil {
		e.T.Fatal(err)
	}
	e.Worker = w
	e.T.Cleanup(w.Stop)
	return w
}

// RestartServer stops the dev server and starts it again on the same port
// with the same sqlite file (Options.Restartable).
func (e *Env) RestartServer() {
	e.T.Helper()
	if e.serverOpts.DBFile == "" {
		e.T.Fatal("RestartServer needs Options.Restartable")
	}
	e.Server.Stop()
	srv, err := devserver.Start(context.Background(), e.serverOpts)
	if err != nil {
		e.T.Fatalf("restart the dev server on port %d: %v", e.serverOpts.Port, err)
	}
	e.Server = srv
}

// Register starts or updates the cluster ledger, as `starter cluster register` does.
func (e *Env) Register() api.ClusterState {
	placed, err := placement.Place(e.Inventory)
	if err != nil {
		e.T.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := e.Client.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID: api.ClusterID(e.Cluster), TaskQueue: api.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, api.ClusterWorkflowName, api.ClusterInput{Inventory: *e.Inventory, Placement: placed})
	h, err := e.Client.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{UpdateName: api.UpdateRegister,
			Args: []any{api.RegisterRequest{Inventory: *e.Inventory, Placement: placed}}, WaitForStage: client.WorkflowUpdateStageCompleted},
	})
	if err != nil {
		e.T.Fatal(err)
	}
	var st api.ClusterState
	if err := h.Get(ctx, &st); err != nil {
		e.T.Fatal(err)
	}
	return st
}

// State queries the ledger.
func (e *Env) State() api.ClusterState { return LedgerState(e.T, e.Client, e.Cluster) }

// LedgerState queries the ledger of cluster through c, for suites that
// run their own server; t fails when the ledger does not answer.
func LedgerState(t testing.TB, c client.Client, cluster string) api.ClusterState {
	t.Helper()
	v, err := c.QueryWorkflow(context.Background(), api.ClusterID(cluster), "", api.QueryState)
	if err != nil {
		t.Fatal(err)
	}
	var st api.ClusterState
	if err := v.Get(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// Eventually polls cond until it holds or the deadline passes.
func (e *Env) Eventually(within time.Duration, what string, cond func() bool) {
	e.T.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			e.T.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Context is a context for the test's calls, cancelled after within or
// when the test ends.
func (e *Env) Context(within time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	e.T.Cleanup(cancel)
	return ctx
}

// StartUpgrade starts a runtime upgrade of the cluster to target, with no
// wait between racks and 5s drain and VM shutdown bounds.
func (e *Env) StartUpgrade(ctx context.Context, target string) (client.WorkflowRun, error) {
	zero := 0
	return e.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.UpgradeID(e.Cluster), TaskQueue: api.TaskQueue},
		api.RuntimeUpgradeWorkflowName, api.UpgradeInput{Cluster: e.Cluster, TargetVersion: target,
			UpdateStrategy: model.UpdateStrategy{WaitTimeMinutes: &zero}, DrainTimeout: 5 * time.Second, VMShutdownTimeout: 5 * time.Second})
}

// Upgrade runs StartUpgrade to its end and fails the test unless the
// upgrade ends with the cluster Running.
func (e *Env) Upgrade(ctx context.Context, target string) api.UpgradeStatus {
	e.T.Helper()
	run, err := e.StartUpgrade(ctx, target)
	if err != nil {
		e.T.Fatalf("start the upgrade to %s: %v", target, err)
	}
	var st api.UpgradeStatus
	if err := run.Get(ctx, &st); err != nil {
		e.T.Fatalf("the upgrade to %s: %v", target, err)
	}
	if st.DetailedStatus != model.ClusterRunning {
		e.T.Fatalf("the upgrade to %s ended %s: %s", target, st.DetailedStatus, st.DetailedStatusMessage)
	}
	return st
}

// Dump writes the lab's event log to the test log on failure (Start
// registers it).
func (e *Env) Dump() {
	if !e.T.Failed() {
		return
	}
	b, _ := os.ReadFile(e.EventsPath)
	fmt.Fprintf(os.Stderr, "---- lab events ----\n%s\n", b)
}

// RecordHistories writes the histories of the given workflow ids to
// workflows/testdata/histories/ when RACKROLL_RECORD_HISTORIES is set
// (`make histories`), for the replay tests that keep old histories working.
func (e *Env) RecordHistories(ids ...string) { e.RecordHistoriesAs("", ids...) }

// RecordHistoriesAs is RecordHistories with each file named prefix_<id>,
// for a run whose ids another test records too.
func (e *Env) RecordHistoriesAs(prefix string, ids ...string) {
	if os.Getenv("RACKROLL_RECORD_HISTORIES") == "" {
		return
	}
	_, self, _, _ := runtime.Caller(0) // test/e2e/e2e.go in the checkout
	dir := filepath.Join(filepath.Dir(self), "..", "..", "workflows", "testdata", "histories")
	for _, id := range ids {
		if err := writeHistory(e.Client, dir, prefix, id); err != nil {
			e.T.Errorf("record history of %s: %v", id, err)
		}
	}
}
