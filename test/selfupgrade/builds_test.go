// Package selfupgrade_test runs rackroll's long workflows across two
// builds of the worker on a Temporal server with Worker Versioning
// (docs/self-upgrade.md): a run stays on the build it started on, and the
// long runs move to a new current build at their safe points.
package selfupgrade_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/selfupgrade"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/worker/wiring"
	"go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// deployment is the Worker Deployment both builds join.
const deployment = selfupgrade.DefaultDeployment

// startBuild runs an in-process worker of build id, versioned as a
// production worker started with --deployment and --build-id is. A build
// given workflows registers those instead of rackroll's of the same name.
// On a site with a site section the build is a central worker (no BMC or
// Kubernetes activities): startSiteWorker serves every build.
func startBuild(e *e2e.Env, id string, workflows ...registered) worker.Worker {
	e.T.Helper()
	opts := wiring.Options{PollInterval: 200 * time.Millisecond, BMCPowerOnTimeout: 15 * time.Second,
		NoSiteActivities: e.Inventory.Site != nil,
		Worker: worker.Options{DeploymentOptions: worker.DeploymentOptions{UseVersioning: true,
			Version: worker.WorkerDeploymentVersion{DeploymentName: deployment, BuildID: id}}}}
	w := worker.New(e.Client, api.TaskQueue, opts.Worker)
	wiring.Register(replacing{w, workflows}, e.Client, opts)
	if err := w.Start(); err != nil {
		e.T.Fatal(err)
	}
	e.T.Cleanup(w.Stop)
	return w
}

// startSiteWorker gives e's cluster a site section and runs its site
// worker, unversioned as `worker --site-of` is: it polls only the site
// queue, which belongs to no version, so it serves every build's runs.
func startSiteWorker(e *e2e.Env) {
	e.T.Helper()
	e.Inventory.Site = &model.SiteSpec{}
	w := wiring.New(e.Client, wiring.Options{SiteOf: e.Cluster, PollInterval: 200 * time.Millisecond, BMCPowerOnTimeout: 15 * time.Second})
	if err := w.Start(); err != nil {
		e.T.Fatal(err)
	}
	e.T.Cleanup(w.Stop)
}

// registered is a workflow function under a rackroll workflow type's name.
type registered struct {
	name string
	fn   any
}

// replacing registers on a worker, putting the given workflows in place
// of rackroll's of the same name.
type replacing struct {
	worker.Worker
	with []registered
}

func (r replacing) RegisterWorkflowWithOptions(fn any, o workflow.RegisterOptions) {
	for _, x := range r.with {
		if x.name == o.Name {
			fn = x.fn
		}
	}
	r.Worker.RegisterWorkflowWithOptions(fn, o)
}

// makeCurrent makes build id the deployment's current version, as
// `temporal worker deployment set-current-version` does, once its workers
// have polled (the version exists from their first poll).
func makeCurrent(e *e2e.Env, id string) {
	e.T.Helper()
	h := e.Client.WorkerDeploymentClient().GetHandle(deployment)
	e.Eventually(time.Minute, "version "+id+" current", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: id})
		if err != nil {
			e.T.Logf("set current version %s: %v", id, err)
		}
		return err == nil
	})
}

// onBuild is the build and behaviour of workflow id's current run, from
// DescribeWorkflowExecution, and the run's ID.
func onBuild(e *e2e.Env, id string) (build, behavior, runID string) {
	e.T.Helper()
	resp, err := e.Client.WorkflowService().DescribeWorkflowExecution(context.Background(),
		&workflowservice.DescribeWorkflowExecutionRequest{Namespace: "default", Execution: execution(id)})
	if err != nil {
		e.T.Fatal(err)
	}
	info := resp.GetWorkflowExecutionInfo()
	vi := info.GetVersioningInfo()
	return vi.GetDeploymentVersion().GetBuildId(), vi.GetBehavior().String(), info.GetExecution().GetRunId()
}

// drained waits until build id reports Drained: no open run is on it.
func drained(e *e2e.Env, id string, within time.Duration) {
	e.T.Helper()
	h := e.Client.WorkerDeploymentClient().GetHandle(deployment)
	e.Eventually(within, "version "+id+" drained", func() bool {
		d, err := h.DescribeVersion(context.Background(), client.WorkerDeploymentDescribeVersionOptions{BuildID: id})
		return err == nil && d.Info.DrainageInfo != nil && d.Info.DrainageInfo.DrainageStatus == client.WorkerDeploymentVersionDrainageStatusDrained
	})
}

// logHistory logs the event types of workflow id's current run, with each
// workflow task's target-changed flag and build, when the test failed.
func logHistory(e *e2e.Env, id string) {
	e.T.Cleanup(func() {
		if !e.T.Failed() {
			return
		}
		it := e.Client.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				e.T.Logf("%s history: %v", id, err)
				return
			}
			line := fmt.Sprintf("%s %d %s", id, ev.GetEventId(), ev.GetEventType())
			if a := ev.GetWorkflowTaskStartedEventAttributes(); a != nil {
				line += fmt.Sprintf(" targetChanged=%v", a.GetTargetWorkerDeploymentVersionChanged())
			}
			if a := ev.GetWorkflowTaskCompletedEventAttributes(); a != nil {
				line += fmt.Sprintf(" build=%s behavior=%s", a.GetDeploymentVersion().GetBuildId(), a.GetVersioningBehavior())
			}
			e.T.Log(line)
		}
	})
}

func execution(id string) *common.WorkflowExecution { return &common.WorkflowExecution{WorkflowId: id} }
