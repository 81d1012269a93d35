package bench_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// stormCap is the remediation section's maxConcurrentCompute in the storm.
const stormCap = 50

// BenchmarkRemediationStorm: N compute BMMs (RACKROLL_STORM_N, default 200, 8 when small;
// the figure is 1,000) get a read-only root filesystem at once in the
// lab, with the health monitor running and maxConcurrentCompute 50. Every
// remediation must reach a terminal state (b.Fatal otherwise); it reports
// the throughput, the peak number of remediations running at once (sampled
// from visibility; goal ≤ the cap) and the peak RSS of this process, which
// holds the worker (and the lab's simulated BMCs: an upper bound for the
// worker alone; the dev server, etcd and kube-apiserver are other processes).
func BenchmarkRemediationStorm(b *testing.B) {
	n := lab.BenchSize(200, 8)
	if s := os.Getenv("RACKROLL_STORM_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			b.Fatalf("RACKROLL_STORM_N=%q: want a positive count", s)
		}
		n = v
	}
	perRack := min(32, n)                  // the small storm's site is small too
	racks := max(2, (n+perRack-1)/perRack) // one rack would need three management servers
	for i := 0; i < b.N; i++ {
		env := e2e.Start(b, syntheticSite(b, "storm", racks, 2, perRack), e2e.Options{Mutate: func(inv *model.Inventory) {
			e2e.FastRemediation(inv)
			inv.Remediation.MaxConcurrentCompute = stormCap
			inv.Remediation.ReadOnlyRootFilesystemFor = model.Duration(2 * time.Second)
		}})
		ctx := context.Background()
		if _, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.MonitorID(env.Cluster), TaskQueue: api.TaskQueue},
			api.HealthMonitorWorkflowName, api.MonitorInput{Cluster: env.Cluster}); err != nil {
			b.Fatal(err)
		}
		var failed []string
		for _, s := range env.Inventory.Servers() {
			if s.Server.Role == model.RoleCompute && len(failed) < n {
				failed = append(failed, s.Server.Name)
			}
		}
		b.ResetTimer()
		start := time.Now()
		for _, name := range failed {
			if err := env.Lab.SetFault(name, "readonly-rootfs", 0, false); err != nil {
				b.Fatal(err)
			}
		}
		count := func(q string) int {
			r, err := env.Client.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: "default",
				Query: "WorkflowType = '" + api.RemediationWorkflowName + "' AND " + q})
			if err != nil {
				b.Fatal(err)
			}
			return int(r.GetCount())
		}
		// Wait until every failed BMM's remediation is closed, sampling
		// the number running at once. Bounded: a storm that stalls fails.
		peak, done := 0, 0
		closed := map[string]bool{}
		deadline := time.Now().Add(time.Duration(n)*time.Second + 10*time.Minute)
		for {
			peak = max(peak, count("ExecutionStatus = 'Running'"))
			if done = closedRemediations(env, failed, closed); done == len(failed) {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("only %d of %d remediations reached a terminal state", done, len(failed))
			}
			time.Sleep(time.Second)
		}
		elapsed := time.Since(start)
		b.StopTimer()
		outcomes := map[string]int{}
		for _, name := range failed {
			var rs api.RemediationStatus
			if err := env.Client.GetWorkflow(ctx, api.RemediationID(env.Cluster, name), "").Get(ctx, &rs); err != nil {
				outcomes["error: "+firstLine(err.Error())]++
				continue
			}
			outcomes[rs.Outcome]++
		}
		for o, k := range outcomes {
			fmt.Fprintf(os.Stderr, "storm outcome %4d × %s\n", k, o)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(n), "bmms-failed")
		b.ReportMetric(float64(done), "terminal")
		b.ReportMetric(elapsed.Seconds(), "s-storm")
		b.ReportMetric(float64(done)/elapsed.Seconds(), "remediations/s")
		b.ReportMetric(float64(peak), "peak-running")
		b.ReportMetric(float64(stormCap), "cap")
		b.ReportMetric(float64(vmHWM())/1024, "MiB-peak-rss")
		b.ReportMetric(float64(ms.Sys)/(1<<20), "MiB-go-sys")
	}
}

// closedRemediations counts the failed BMMs whose remediation workflow
// exists and is closed (a BMM waiting for admission has none yet).
func closedRemediations(env *e2e.Env, names []string, closed map[string]bool) int {
	ctx := context.Background()
	for _, name := range names {
		if closed[name] {
			continue
		}
		d, err := env.Client.DescribeWorkflowExecution(ctx, api.RemediationID(env.Cluster, name), "")
		if err != nil {
			continue // not started yet
		}
		if d.GetWorkflowExecutionInfo().GetCloseTime() != nil {
			closed[name] = true
		}
	}
	return len(closed)
}

// vmHWM is this process's peak resident set in KiB (Linux), 0 elsewhere.
func vmHWM() int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			v, _ := strconv.Atoi(f[1])
			return v
		}
	}
	return 0
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
