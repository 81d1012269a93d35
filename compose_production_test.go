package rackroll_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/devserver"
	"github.com/rackroll/rackroll/internal/temporalcluster"
)

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
	for service, image := range map[string]string{"temporal": "temporalio/auto-setup", "temporal-setup": "temporalio/admin-tools"} {
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
	env("temporal", "DEFAULT_NAMESPACE", temporalcluster.Namespace)
	env("worker", "TEMPORAL_NAMESPACE", temporalcluster.Namespace)

	// The postgres12 plugin needs PostgreSQL 12 or newer.
	if m := regexp.MustCompile(`^postgres:(\d+)`).FindStringSubmatch(svc("postgresql").Image); m == nil {
		t.Errorf("postgresql image %q: want postgres:<major>", svc("postgresql").Image)
	} else if major, _ := strconv.Atoi(m[1]); major < 12 {
		t.Errorf("postgresql image %q: the %s plugin needs PostgreSQL 12 or newer", svc("postgresql").Image, temporalcluster.Plugin)
	}

	setup := strings.Join(svc("temporal-setup").Command, " ")
	for _, want := range append([]string{"--namespace " + temporalcluster.Namespace, "--type Keyword"}, devserver.SearchAttributes...) {
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
