package rackroll_test

import (
	"context"
	"os"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

// No Docker engine runs here, so the compose file is proven by loading it
// with the compose-spec loader and checking the topology.
func TestDockerComposeDefinesTheStack(t *testing.T) {
	opts, err := cli.NewProjectOptions([]string{"docker-compose.yml"},
		cli.WithWorkingDirectory("."), cli.WithEnv([]string{"BMC_PASSWORD=x"}))
	if err != nil {
		t.Fatal(err)
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("docker-compose.yml does not load: %v", err)
	}
	svc := func(name string) types.ServiceConfig {
		s, err := p.GetService(name)
		if err != nil {
			t.Fatalf("service %s: %v", name, err)
		}
		return s
	}
	for _, name := range []string{"postgresql", "temporal", "temporal-ui", "worker"} {
		s := svc(name)
		if s.Image == "" && s.Build == nil {
			t.Errorf("service %s has neither image nor build", name)
		}
	}
	if svc("postgresql").HealthCheck == nil || svc("temporal").HealthCheck == nil {
		t.Error("postgresql and temporal need health checks for depends_on conditions")
	}
	wantDep := func(from, to, cond string) {
		d, ok := svc(from).DependsOn[to]
		if !ok || d.Condition != cond {
			t.Errorf("%s depends_on %s = %+v, want condition %s", from, to, d, cond)
		}
	}
	wantDep("temporal", "postgresql", types.ServiceConditionHealthy)
	wantDep("temporal-ui", "temporal", types.ServiceConditionHealthy)
	wantDep("worker", "temporal", types.ServiceConditionHealthy)
	wantDep("worker", "temporal-setup", types.ServiceConditionCompletedSuccessfully)

	w := svc("worker")
	if w.Build == nil || w.Build.Dockerfile != "Dockerfile" {
		t.Errorf("worker build = %+v", w.Build)
	}
	if _, err := os.Stat("Dockerfile"); err != nil {
		t.Errorf("worker Dockerfile: %v", err)
	}
	if got := w.Environment["TEMPORAL_ADDRESS"]; got == nil || *got != "temporal:7233" {
		t.Errorf("worker TEMPORAL_ADDRESS = %v", got)
	}
	ports := map[uint32]bool{}
	for _, s := range []string{"temporal", "temporal-ui"} {
		for _, pc := range svc(s).Ports {
			if pc.Published != "" {
				ports[pc.Target] = true
			}
		}
	}
	if !ports[7233] || !ports[8080] {
		t.Errorf("published ports = %v, want 7233 (frontend) and 8080 (UI)", ports)
	}
}
