package workflows

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Every workflow type is Pinned (docs/self-upgrade.md): a run replays only
// on the build it started on.
func TestRegisterPinsEveryWorkflowType(t *testing.T) {
	r := &registrations{}
	Register(r)
	want := api.WorkflowNames()
	if len(r.by) != len(want) || r.unnamed > 0 {
		t.Fatalf("registered %d types by name and %d without one, want the %d of internal/api (WorkflowNames)", len(r.by), r.unnamed, len(want))
	}
	for _, name := range want {
		b, ok := r.by[name]
		if !ok {
			t.Errorf("%s is not registered", name)
		} else if b != workflow.VersioningBehaviorPinned {
			t.Errorf("%s: versioning behaviour %v, want Pinned", name, b)
		}
	}
}

// A versioned worker with no default behaviour refuses (panics on) a type
// registered without one: Register passes it.
func TestRegisterOnAVersionedWorker(t *testing.T) {
	c, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1"}) // never dialled: the worker is not started
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w := worker.New(c, api.TaskQueue, worker.Options{DeploymentOptions: worker.DeploymentOptions{
		UseVersioning: true, Version: worker.WorkerDeploymentVersion{DeploymentName: "rackroll", BuildID: "test"}}})
	Register(w)
}

type registrations struct {
	by      map[string]workflow.VersioningBehavior
	unnamed int
}

func (r *registrations) RegisterWorkflow(any) { r.unnamed++ }
func (r *registrations) RegisterWorkflowWithOptions(_ any, o workflow.RegisterOptions) {
	if r.by == nil {
		r.by = map[string]workflow.VersioningBehavior{}
	}
	if o.Name == "" {
		r.unnamed++
		return
	}
	r.by[o.Name] = o.VersioningBehavior
}
func (r *registrations) RegisterDynamicWorkflow(any, workflow.DynamicRegisterOptions) { r.unnamed++ }
