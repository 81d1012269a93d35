package workflows

import (
	"os"
	"strings"
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

// docs/design.md's table of workflows is the map from type to package:
// every registered type has a row naming the package Families finds it in.
func TestDesignTableNamesEveryWorkflowAndItsPackage(t *testing.T) {
	b, err := os.ReadFile("../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{} // type -> package
	for _, line := range strings.Split(string(b), "\n") {
		if c := strings.Split(line, " | "); len(c) == 4 && strings.HasPrefix(c[0], "| `") {
			rows[strings.Trim(c[0], "| `")] = strings.Trim(c[1], "`")
		}
	}
	for pkg, names := range Families() {
		rel := pkg[strings.Index(pkg, "/workflows")+1:]
		for _, name := range names {
			if got, ok := rows[name]; !ok {
				t.Errorf("docs/design.md#the-workflows-and-their-ids has no row for %s (package %s)", name, rel)
			} else if got != rel {
				t.Errorf("docs/design.md#the-workflows-and-their-ids puts %s in %s; it is in %s", name, got, rel)
			}
		}
	}
}
