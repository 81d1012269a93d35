package reliability

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/devserver"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/worker/wiring"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// siteOptions choose the inventory edits and who runs the worker.
type siteOptions struct {
	Mutate  func(*model.Inventory)
	Timings lab.Timings // zero: the fast timings of test/e2e
	// InProcess runs wiring in the test with these options instead of
	// the worker binary as a subprocess.
	InProcess *wiring.Options
}

// site is an e2e.Env whose dev server keeps its sqlite file and port, so
// it can be restarted, and whose worker may be a killable subprocess.
// e2e.Start cannot do either (its server's database lives in a temp dir
// removed on Stop), so the env is assembled here from the same parts.
type site struct {
	*e2e.Env
	dbFile  string
	port    int
	dir     string
	proc    *workerProc // nil with an in-process worker
	workLog string
}

func startSite(t *testing.T, inventory string, opts siteOptions) *site {
	t.Helper()
	if testing.Short() {
		t.Skip("reliability: starts the dev server, the lab and the worker")
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
	s := &site{dir: dir, dbFile: filepath.Join(dir, "temporal.db"), workLog: filepath.Join(dir, "worker.log")}
	s.Env = &e2e.Env{T: t, Cluster: inv.Cluster, EventsPath: filepath.Join(dir, "events.jsonl"), InvPath: filepath.Join(dir, "lab.yaml")}
	if s.port, err = devserver.FreePort(); err != nil {
		t.Fatal(err)
	}
	if s.Server, err = devserver.Start(ctx, devserver.Options{Port: s.port, DBFile: s.dbFile}); err != nil {
		t.Fatal(err)
	}
	// The closure reads s.Server at cleanup time: a restart replaces it.
	t.Cleanup(func() { s.Server.Stop() })
	timings := opts.Timings
	if timings == (lab.Timings{}) {
		timings = lab.FastTimings()
	}
	if s.Lab, err = lab.Start(ctx, lab.Options{Inventory: inv, Dir: filepath.Join(dir, "lab"), EventsPath: s.EventsPath, Timings: timings}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Lab.Stop)
	if err := s.Lab.WriteOutInventory(s.InvPath); err != nil {
		t.Fatal(err)
	}
	if s.Inventory, err = model.LoadInventory(s.InvPath); err != nil {
		t.Fatal(err)
	}
	if s.Client, err = s.Server.Client(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Client.Close)
	if opts.InProcess != nil {
		w := wiring.New(s.Client, *opts.InProcess)
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		s.Worker = w
		t.Cleanup(w.Stop)
	} else {
		s.proc = startWorkerProc(t, s.Server.Address, s.workLog)
	}
	s.Register()
	return s
}

// restartServer stops the dev server and starts it again on the same port
// with the same sqlite file, as an operator restarting Temporal would.
func (s *site) restartServer() {
	s.T.Helper()
	s.Server.Stop()
	srv, err := devserver.Start(context.Background(), devserver.Options{Port: s.port, DBFile: s.dbFile})
	if err != nil {
		s.T.Fatalf("restart the dev server on port %d: %v", s.port, err)
	}
	s.Server = srv
}

// waitClosed polls until the workflow is closed and returns its status. It
// polls Describe rather than blocking in Get so that a server restart in
// the meantime only costs a few failed polls.
func (s *site) waitClosed(ctx context.Context, id string) enumspb.WorkflowExecutionStatus {
	s.T.Helper()
	for {
		d, err := s.Client.DescribeWorkflowExecution(ctx, id, "")
		if err == nil {
			if st := d.WorkflowExecutionInfo.Status; st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
				return st
			}
		}
		select {
		case <-ctx.Done():
			s.T.Fatalf("%s still running at the test's deadline (last error: %v)", id, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// running reports whether the workflow is still running (true on errors:
// a missing answer is no reason to stop the chaos early).
func (s *site) running(id string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	d, err := s.Client.DescribeWorkflowExecution(ctx, id, "")
	return err != nil || d.WorkflowExecutionInfo.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
}

// start starts a workflow on the task queue.
func (s *site) start(ctx context.Context, id, name string, in any) {
	s.T.Helper()
	if _, err := s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: api.TaskQueue}, name, in); err != nil {
		s.T.Fatal(err)
	}
}
