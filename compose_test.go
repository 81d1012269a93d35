package rackroll_test

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/rackroll/rackroll/internal/devserver"
	"github.com/rackroll/rackroll/internal/temporalcluster"
)

// No Docker engine runs here, so the compose file is proven by loading it
// with the compose-spec loader and checking the topology.
func TestDockerComposeDefinesTheStack(t *testing.T) {
	p := loadCompose(t)
	svc := service(t, p)
	// Plain `docker compose up` is the stack without the demo.
	for _, name := range demoServices {
		if _, err := p.GetService(name); err == nil {
			t.Errorf("%s runs without --profile demo", name)
		}
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
	wantDeps(t, svc, map[string]map[string]string{
		"temporal-schema": {"postgresql": healthy},
		"temporal":        {"temporal-schema": completed},
		"temporal-ui":     {"temporal": healthy},
		"worker":          {"temporal": healthy, "temporal-setup": completed},
	})

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

var demoServices = []string{"demo-inventory", "lab", "lab-worker", "demo-register", "demo-upgrade"}

// loadCompose loads docker-compose.yml with the compose-spec loader (what
// `docker compose` itself runs) and the given profiles active.
func loadCompose(t *testing.T, profiles ...string) *types.Project {
	t.Helper()
	opts, err := cli.NewProjectOptions([]string{"docker-compose.yml"},
		cli.WithWorkingDirectory("."), cli.WithEnv([]string{"BMC_PASSWORD=x"}), cli.WithProfiles(profiles))
	if err != nil {
		t.Fatal(err)
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("docker-compose.yml does not load (profiles %v): %v", profiles, err)
	}
	return p
}

// The depends_on conditions, short, for the wantDeps tables.
const (
	healthy   = types.ServiceConditionHealthy
	completed = types.ServiceConditionCompletedSuccessfully
)

// wantDeps checks that each service starts once each service it names
// meets its condition (deps[from][to]).
func wantDeps(t *testing.T, svc func(string) types.ServiceConfig, deps map[string]map[string]string) {
	t.Helper()
	for from, tos := range deps {
		for to, cond := range tos {
			d, ok := svc(from).DependsOn[to]
			if !ok || d.Condition != cond {
				t.Errorf("%s depends_on %s = %+v, want condition %s", from, to, d, cond)
			}
		}
	}
}

func service(t *testing.T, p *types.Project) func(string) types.ServiceConfig {
	return func(name string) types.ServiceConfig {
		t.Helper()
		s, err := p.GetService(name)
		if err != nil {
			t.Fatalf("service %s: %v", name, err)
		}
		return s
	}
}

// `docker compose --profile demo up` adds the lab, a site worker in the
// lab's network (its BMCs and apiserver listen on the lab's loopback),
// and the one-shot register and upgrade steps, each started only once
// what it needs is ready.
func TestDockerComposeDemoProfile(t *testing.T) {
	p := loadCompose(t, "demo")
	svc := service(t, p)
	for _, name := range append([]string{"postgresql", "temporal", "temporal-ui", "worker"}, demoServices...) {
		s := svc(name)
		if s.Image == "" && s.Build == nil {
			t.Errorf("service %s has neither image nor build", name)
		}
		if slices.Contains(demoServices, name) != slices.Contains(s.Profiles, "demo") {
			t.Errorf("service %s profiles = %v", name, s.Profiles)
		}
	}
	wantDeps(t, svc, map[string]map[string]string{
		"lab":           {"demo-inventory": completed},
		"lab-worker":    {"lab": healthy, "temporal": healthy, "temporal-setup": completed},
		"demo-register": {"lab": healthy, "temporal-setup": completed},
		"demo-upgrade":  {"demo-register": completed, "lab-worker": types.ServiceConditionStarted},
	})

	lab := svc("lab")
	if lab.Build == nil || lab.Build.Dockerfile != "Dockerfile" || lab.Build.Target != "lab" {
		t.Errorf("lab build = %+v, want the Dockerfile's lab target", lab.Build)
	}
	if lab.HealthCheck == nil || !slices.Contains(lab.HealthCheck.Test, "status") {
		t.Errorf("lab health check = %+v, want `starter lab status`", lab.HealthCheck)
	}
	cmd := strings.Join(lab.Command, " ")
	for _, w := range []string{"lab up", "--out-inventory /shared/lab.yaml", "--dir /shared/", "--admin-addr 0.0.0.0:"} {
		if !strings.Contains(cmd, w) {
			t.Errorf("lab command %q lacks %q", cmd, w)
		}
	}
	if got := svc("demo-inventory").Command; !strings.Contains(strings.Join(got, " "), "site: {}") {
		t.Errorf("demo-inventory command %q does not add the site section that routes to lab-worker", got)
	}
	lw := svc("lab-worker")
	if lw.NetworkMode != "service:lab" {
		t.Errorf("lab-worker network_mode = %q, want service:lab", lw.NetworkMode)
	}
	if got := strings.Join(lw.Command, " "); got != "--site-of site-a" {
		t.Errorf("lab-worker command = %q", got)
	}
	if w := svc("worker"); w.NetworkMode != "" {
		t.Errorf("the central worker must not depend on the demo's network: network_mode %q", w.NetworkMode)
	}
	// Everything that reads the lab's files mounts the same volume at the
	// same path: the out-inventory holds absolute paths.
	for _, name := range []string{"demo-inventory", "lab", "lab-worker", "demo-register"} {
		ok := false
		for _, v := range svc(name).Volumes {
			ok = ok || (v.Source == "shared" && v.Target == "/shared")
		}
		if !ok {
			t.Errorf("%s does not mount volume shared at /shared", name)
		}
	}
	df, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"AS lab", "AS k8s", "go.etcd.io/etcd/server/v3", "k8s.io/kubernetes/cmd/kube-apiserver", "RACKROLL_BIN="} {
		if !strings.Contains(string(df), w) {
			t.Errorf("Dockerfile lacks %q", w)
		}
	}
	if i, j := strings.LastIndex(string(df), "\nFROM "), strings.Index(string(df), "AS worker"); i < 0 || j < i {
		t.Error("the worker must stay the Dockerfile's last (default) stage")
	}
}

// docker-compose.yml is the production test's deployment (test/production
// on internal/temporalcluster) in container form. Nothing runs the compose
// stack here, so this keeps the two from drifting apart: server version
// (also the Makefile's), SQL plugin, databases, shards, credentials,
// namespace and search attributes.
func TestDockerComposeIsTheProductionTestsDeployment(t *testing.T) {
	p := loadCompose(t)
	svc := service(t, p)
	env := func(service, key, want string) {
		t.Helper()
		if got := svc(service).Environment[key]; got == nil || *got != want {
			t.Errorf("%s: %s = %v, want %q (as internal/temporalcluster)", service, key, deref(got), want)
		}
	}
	for service, image := range map[string]string{"temporal": "temporalio/server", "temporal-schema": "temporalio/admin-tools", "temporal-setup": "temporalio/admin-tools"} {
		if want := image + ":" + temporalcluster.ServerVersion; svc(service).Image != want {
			t.Errorf("%s: image %s, want %s", service, svc(service).Image, want)
		}
	}
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?m)^TEMPORAL_SERVER_VERSION := v(\S+)$`).FindSubmatch(makefile); m == nil || string(m[1]) != temporalcluster.ServerVersion {
		t.Errorf("Makefile TEMPORAL_SERVER_VERSION = %q, want v%s", m, temporalcluster.ServerVersion)
	}

	env("temporal", "DB", temporalcluster.Plugin)
	env("temporal", "DBNAME", temporalcluster.Database)
	env("temporal", "VISIBILITY_DBNAME", temporalcluster.VisibilityDatabase)
	env("temporal", "NUM_HISTORY_SHARDS", strconv.Itoa(temporalcluster.HistoryShards))
	env("temporal", "POSTGRES_USER", temporalcluster.User)
	env("postgresql", "POSTGRES_USER", temporalcluster.User)
	// The test makes up its password per run; the compose services must
	// agree with each other.
	if pw := svc("postgresql").Environment["POSTGRES_PASSWORD"]; pw == nil {
		t.Errorf("postgresql: POSTGRES_PASSWORD is not set")
	} else {
		env("temporal", "POSTGRES_PWD", *pw)
	}
	env("temporal-schema", "SQL_PASSWORD", deref(svc("postgresql").Environment["POSTGRES_PASSWORD"]).(string))
	env("worker", "TEMPORAL_NAMESPACE", temporalcluster.Namespace)

	// The postgres12 plugin needs PostgreSQL 12 or newer.
	if m := regexp.MustCompile(`^postgres:(\d+)`).FindStringSubmatch(svc("postgresql").Image); m == nil {
		t.Errorf("postgresql image %q: want postgres:<major>", svc("postgresql").Image)
	} else if major, _ := strconv.Atoi(m[1]); major < 12 {
		t.Errorf("postgresql image %q: the %s plugin needs PostgreSQL 12 or newer", svc("postgresql").Image, temporalcluster.Plugin)
	}

	// The schemas as the production test makes them (schema.go).
	schema := strings.Join(svc("temporal-schema").Command, " ")
	for _, want := range []string{"--plugin " + temporalcluster.Plugin, temporalcluster.Database + ":temporal",
		temporalcluster.VisibilityDatabase + ":visibility", "create-database", "setup-schema --version 0.0", "update-schema --schema-name postgresql/v12/"} {
		if !strings.Contains(schema, want) {
			t.Errorf("temporal-schema runs no %q:\n%s", want, schema)
		}
	}
	setup := strings.Join(svc("temporal-setup").Command, " ")
	for _, want := range append([]string{"namespace create --namespace " + temporalcluster.Namespace, "--namespace " + temporalcluster.Namespace, "--type Keyword"}, devserver.SearchAttributes...) {
		if !strings.Contains(setup, want) {
			t.Errorf("temporal-setup registers no %q:\n%s", want, setup)
		}
	}
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
