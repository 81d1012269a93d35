// Package workerapp assembles rackroll's Temporal worker: every workflow and
// activity registered on one task queue. worker/main.go runs it; end-to-end
// tests run it in-process against the dev server and the lab.
package workerapp

import (
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/activities/ledger"
	"github.com/rackroll/rackroll/workflows"
	"github.com/rackroll/rackroll/workflows/api"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"k8s.io/client-go/kubernetes"
)

// Options configure New.
type Options struct {
	TaskQueue string // default api.TaskQueue
	Worker    worker.Options
	// PollInterval is how often BMC and Kubernetes waits poll (default 2 s).
	PollInterval time.Duration
	// Management reaches the cluster that holds kubeconfig Secrets
	// (kubeconfigSecretRef); nil when the worker has none.
	Management func() (kubernetes.Interface, error)
}

// New returns a worker with everything registered; call Run or Start.
func New(c client.Client, opts Options) worker.Worker {
	tq := opts.TaskQueue
	if tq == "" {
		tq = api.TaskQueue
	}
	w := worker.New(c, tq, opts.Worker)
	Register(w, c, opts)
	return w
}

// Register puts every workflow and activity on r.
func Register(r worker.Registry, c client.Client, opts Options) {
	poll := opts.PollInterval
	if poll <= 0 {
		poll = 2 * time.Second
	}
	workflows.Register(r)
	r.RegisterActivity(&ledger.Activities{Client: c})
	r.RegisterActivity(&bmc.Activities{PollInterval: poll})
	r.RegisterActivity(kube.New(newClusterClients(c, opts.Management), kube.Options{PollInterval: poll}))
}
