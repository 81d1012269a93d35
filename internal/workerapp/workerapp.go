// Package workerapp assembles rackroll's Temporal worker: every workflow and
// activity registered on one task queue. worker/main.go runs it; end-to-end
// tests run it in-process against the dev server.
package workerapp

import (
	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/workflows/api"
	"github.com/rackroll/rackroll/workflows"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// Options configure New.
type Options struct {
	TaskQueue string // default api.TaskQueue
	Worker    worker.Options
}

// New returns a worker with everything registered; call Run or Start.
func New(c client.Client, opts Options) worker.Worker {
	tq := opts.TaskQueue
	if tq == "" {
		tq = api.TaskQueue
	}
	w := worker.New(c, tq, opts.Worker)
	Register(w)
	return w
}

// Register puts every workflow and activity on r.
func Register(r worker.Registry) {
	workflows.Register(r)
	r.RegisterActivity(bmc.New())
	r.RegisterActivity(kube.New())
}
