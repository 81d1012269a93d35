package bench_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalcluster"
	"github.com/rackroll/rackroll/worker/wiring"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
)

// The fleet benchmark's workers are processes of their own, as in a
// multi-site installation, so that their CPU and memory are read from
// /proc apart from the benchmark's (which polls and reads histories) and
// from Temporal's. This test binary is that process: run with
// fleetWorkerEnv set, TestMain runs a worker instead of the tests.
const (
	fleetWorkerEnv  = "RACKROLL_FLEET_WORKER"  // "central", or "site:<cluster>[,<cluster>…]"
	fleetTimingsEnv = "RACKROLL_FLEET_TIMINGS" // the instant hardware's, as reimage,boot,power,drain durations
)

func TestMain(m *testing.M) {
	if role := os.Getenv(fleetWorkerEnv); role != "" {
		os.Exit(runFleetWorker(role))
	}
	os.Exit(m.Run())
}

// runFleetWorker runs a central worker (workflows and ledger activities on
// api.TaskQueue, exactly what `worker --no-site-activities` registers) or
// a site worker (the instant hardware on each named cluster's site queue)
// until SIGTERM.
func runFleetWorker(role string) int {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := client.Dial(client.Options{HostPort: os.Getenv("TEMPORAL_ADDRESS"), Namespace: os.Getenv("TEMPORAL_NAMESPACE"),
		Logger: sdklog.NewStructuredLogger(logger)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Close()
	var ws []worker.Worker
	if role == "central" {
		ws = append(ws, wiring.New(c, wiring.Options{NoSiteActivities: true, Namespace: os.Getenv("TEMPORAL_NAMESPACE")}))
	} else {
		clusters, ok := strings.CutPrefix(role, "site:")
		if !ok {
			fmt.Fprintf(os.Stderr, "%s=%q: want central or site:<cluster>,…\n", fleetWorkerEnv, role)
			return 2
		}
		t, err := parseTimings(os.Getenv(fleetTimingsEnv))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		// One worker per site queue in this process, with the SDK's
		// poller autoscaling as the real worker has (wiring.pollers).
		auto := worker.NewPollerBehaviorAutoscaling(worker.PollerBehaviorAutoscalingOptions{})
		for _, cl := range strings.Split(clusters, ",") {
			w := worker.New(c, model.SiteTaskQueue(cl), worker.Options{WorkflowTaskPollerBehavior: auto, ActivityTaskPollerBehavior: auto})
			w.RegisterActivity(&instant{timings: t})
			ws = append(ws, w)
		}
	}
	for _, w := range ws {
		if err := w.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	for _, w := range ws {
		w.Stop()
	}
	return 0
}

func (t instantTimings) String() string {
	return fmt.Sprintf("%v,%v,%v,%v", t.Reimage, t.Boot, t.Power, t.Drain)
}

func parseTimings(s string) (instantTimings, error) {
	var t instantTimings
	if s == "" {
		return t, nil
	}
	f := strings.Split(s, ",")
	if len(f) != 4 {
		return t, fmt.Errorf("%s=%q: want reimage,boot,power,drain", fleetTimingsEnv, s)
	}
	for i, d := range []*time.Duration{&t.Reimage, &t.Boot, &t.Power, &t.Drain} {
		v, err := time.ParseDuration(f[i])
		if err != nil {
			return t, fmt.Errorf("%s=%q: %w", fleetTimingsEnv, s, err)
		}
		*d = v
	}
	return t, nil
}

// startFleetWorker runs this test binary as a worker process with role,
// its log in dir; it is killed at the end of the benchmark.
func startFleetWorker(b *testing.B, dir, address, role string, t instantTimings) *temporalcluster.Process {
	b.Helper()
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	name := strings.NewReplacer(":", "-", ",", "_").Replace(role)
	p := temporalcluster.NewProcess(name, filepath.Join(dir, name+".log"), nil, self, "-test.run=^$")
	p.Env = []string{"LC_ALL=C", "HOME=" + dir, "TEMPORAL_ADDRESS=" + address, "TEMPORAL_NAMESPACE=" + temporalcluster.Namespace,
		fleetWorkerEnv + "=" + role, fleetTimingsEnv + "=" + t.String()}
	if err := p.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Stop(syscall.SIGTERM) })
	return p
}

// taskTrouble counts, in the workers' logs under dir, the workflow tasks
// the SDK failed to process (each costs its run a replay of its whole
// history on the next task) and those that took over five seconds
// (TMPRL1104: local activities waiting, or a long replay).
func taskTrouble(b *testing.B, dir string) (failed, slow int) {
	b.Helper()
	logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil {
			b.Fatal(err)
		}
		failed += bytes.Count(data, []byte("Failed to process workflow task"))
		slow += bytes.Count(data, []byte("TMPRL1104"))
	}
	return failed, slow
}
