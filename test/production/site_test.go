package production

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/devserver"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalcluster"
	"github.com/rackroll/rackroll/internal/toolbin"
	"github.com/rackroll/rackroll/test/e2e"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
)

// site is the production-shaped deployment of the test: the Temporal
// cluster on PostgreSQL, the lab, and rackroll's worker binary run as
// separate processes, as an operator runs them.
type site struct {
	t          *testing.T
	temporal   *temporalcluster.Cluster
	lab        *lab.Lab
	client     client.Client
	cluster    string
	dir        string
	invPath    string // the lab's out-inventory
	eventsPath string
	workers    []*temporalcluster.Process
}

// startSite brings up Temporal, registers the namespace and the search
// attributes with the Temporal CLI, and starts the lab and the given
// number of workers.
func startSite(t *testing.T, inventory string, workers int) *site {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	s := &site{t: t, dir: dir, invPath: filepath.Join(dir, "lab.yaml"), eventsPath: filepath.Join(dir, "events.jsonl")}
	tc, err := temporalcluster.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.temporal = tc
	t.Cleanup(tc.Stop)
	// Runs before tc.Stop (cleanups run last-in first-out): the logs
	// are gone once the cluster's directory is removed.
	t.Cleanup(func() {
		if t.Failed() {
			fmt.Fprintln(os.Stderr, tc.Logs())
		}
	})
	s.registerNamespace(ctx)

	inv, err := model.LoadInventory(inventory)
	if err != nil {
		t.Fatal(err)
	}
	// Four computes a rack: every phase of the upgrade (three KCPs, the
	// spare, the management servers, four compute racks), 25 reimages.
	e2e.KeepComputes(inv, 4, nil)
	inv.Lab = nil // the example's own timings and faults: the test sets its own
	s.cluster = inv.Cluster
	if s.lab, err = lab.Start(ctx, lab.Options{Inventory: inv, Dir: filepath.Join(dir, "lab"), EventsPath: s.eventsPath, Timings: lab.FastTimings()}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.lab.Stop)
	if err := s.lab.WriteOutInventory(s.invPath); err != nil {
		t.Fatal(err)
	}
	s.client, err = client.Dial(client.Options{HostPort: tc.Address, Namespace: temporalcluster.Namespace,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.client.Close)
	for i := range workers {
		s.workers = append(s.workers, s.startWorker(fmt.Sprintf("worker-%c", 'a'+i)))
	}
	return s
}

// registerNamespace does what an operator does once on a new cluster:
// create the namespace and rackroll's search attributes with the Temporal
// CLI, then wait until a list query on them answers from visibility.
func (s *site) registerNamespace(ctx context.Context) {
	s.t.Helper()
	s.temporalCLI(ctx, "operator", "namespace", "create", "--namespace", temporalcluster.Namespace, "--retention", "72h")
	args := []string{"operator", "search-attribute", "create", "--namespace", temporalcluster.Namespace}
	for _, sa := range devserver.SearchAttributes {
		args = append(args, "--name", sa, "--type", "Keyword")
	}
	// Idempotent (an existing attribute is skipped), so retried while the
	// new namespace reaches every frontend cache.
	s.eventually(time.Minute, "the search attributes are created", func() error {
		_, err := s.temporal.CLI(ctx, args...)
		return err
	})
	s.eventually(time.Minute, "the namespace and search attributes are usable", func() error {
		_, err := s.temporal.CLI(ctx, "workflow", "list", "--namespace", temporalcluster.Namespace,
			"--query", `RackrollCluster="probe" AND RackrollPhase="probe"`)
		return err
	})
}

// temporalCLI runs bin/temporal and fails the test when it fails.
func (s *site) temporalCLI(ctx context.Context, args ...string) string {
	s.t.Helper()
	out, err := s.temporal.CLI(ctx, args...)
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}

// startWorker runs the worker binary with nothing but the address and
// namespace: it finds the lab's credentials and kubeconfig through the
// references in the ledger, as in production.
func (s *site) startWorker(name string) *temporalcluster.Process {
	s.t.Helper()
	worker, _ := e2e.Binaries(s.t, &commands)
	p := temporalcluster.NewProcess(name, filepath.Join(s.dir, name+".log"), nil, worker, "--poll-interval", "500ms", "--log-level", "warn")
	p.Env = s.env()
	if err := p.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { p.Stop(syscall.SIGKILL) })
	return p
}

// env is the whole environment of rackroll's binaries: the cluster's
// address and namespace, a home of their own (no temporal.toml profile).
func (s *site) env() []string {
	return []string{"HOME=" + s.dir, "TEMPORAL_ADDRESS=" + s.temporal.Address, "TEMPORAL_NAMESPACE=" + temporalcluster.Namespace}
}

// starter runs the starter binary and returns its stdout; a non-zero exit
// is returned as an error with stderr.
func (s *site) starter(ctx context.Context, args ...string) (string, error) {
	_, starter := e2e.Binaries(s.t, &commands)
	cmd := exec.CommandContext(ctx, starter, args...)
	cmd.Env = s.env()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("starter %s: %w\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// eventually retries f until it succeeds or within passes.
func (s *site) eventually(within time.Duration, what string, f func() error) {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: not within %v: %v", what, within, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// reimages is the number of reimages the lab has completed.
func (s *site) reimages() int {
	n := 0
	for _, c := range s.lab.ReimageCounts() {
		n += c
	}
	return n
}

// The worker and starter binaries, built once per test process: a killed
// worker must be a process of its own.
var commands toolbin.Commands

func TestMain(m *testing.M) {
	code := m.Run()
	commands.Remove()
	os.Exit(code)
}
