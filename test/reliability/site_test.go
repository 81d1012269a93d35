package reliability

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
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
type site struct {
	*e2e.Env
	proc    *workerProc // nil with an in-process worker
	workLog string      // the worker's log, scanned for secrets when set
	// What a test adds to the secret scan (checkSecrets): more forms a
	// secret of its own would take, more starter commands to run, and
	// output of starter commands it ran itself.
	scanNeedles [][]byte
	scanCmds    [][]string
	scanOutput  []byte
}

func startSite(t *testing.T, inventory string, opts siteOptions) *site {
	t.Helper()
	s := &site{}
	eo := e2e.Options{Mutate: opts.Mutate, Timings: opts.Timings, Restartable: true, Worker: opts.InProcess}
	if opts.InProcess == nil {
		eo.StartWorker = func(e *e2e.Env) {
			s.workLog = filepath.Join(e.Dir, "worker.log")
			s.proc = startWorkerProc(t, e.Server.Address, s.workLog)
		}
	}
	s.Env = e2e.Start(t, inventory, eo)
	return s
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
