package e2e

import (
	"context"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"k8s.io/client-go/kubernetes"
)

// The calls an end-to-end test makes of the site, each written once.

// Run starts workflow name with id on rackroll's task queue; a refused
// start fails the test.
func (e *Env) Run(ctx context.Context, id, name string, in any) client.WorkflowRun {
	e.T.Helper()
	run, err := e.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: api.TaskQueue}, name, in)
	require.NoError(e.T, err, "start %s", id)
	return run
}

// StartAction starts the operator action in on e's cluster; seq tells the
// runs on one BMM apart.
func (e *Env) StartAction(ctx context.Context, seq int, in api.ActionInput) client.WorkflowRun {
	in.Cluster = e.Cluster
	return e.Run(ctx, api.ActionID(e.Cluster, in.BMM, seq), api.BMMActionWorkflowName, in)
}

// StartUpgradeInput starts a runtime upgrade of e's cluster with in.
func (e *Env) StartUpgradeInput(ctx context.Context, in api.UpgradeInput) client.WorkflowRun {
	in.Cluster = e.Cluster
	return e.Run(ctx, api.UpgradeID(e.Cluster), api.RuntimeUpgradeWorkflowName, in)
}

// Update sends the named Update to workflow id and waits for its result
// (decoded into out unless nil); an error is returned, not failed on.
func (e *Env) Update(ctx context.Context, id, name string, out any, args ...any) error {
	h, err := e.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: name, Args: args,
		WaitForStage: client.WorkflowUpdateStageCompleted})
	if err != nil {
		return err
	}
	return h.Get(ctx, out)
}

// Events is the lab's event log, read now.
func (e *Env) Events() []events.Event {
	e.T.Helper()
	evs, err := events.ReadFile(e.EventsPath)
	require.NoError(e.T, err)
	return evs
}

// Kube is rackroll's Kubernetes activities over the site's kubeconfig.
func (e *Env) Kube() *kube.Activities {
	return kube.New(kube.Kubeconfig(e.Inventory.Kubernetes.Kubeconfig), kube.Options{})
}

// Clientset is a client of the lab's apiserver with the site's kubeconfig.
func (e *Env) Clientset(ctx context.Context) kubernetes.Interface {
	e.T.Helper()
	kc, err := kube.Kubeconfig(e.Inventory.Kubernetes.Kubeconfig).Clientset(ctx)
	require.NoError(e.T, err)
	return kc
}
