package workflows_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/e2e"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/api"
	"go.temporal.io/sdk/client"
	"sigs.k8s.io/yaml"
)

// BenchmarkUpgradeCriticalPath: wall time of a full lab upgrade divided by
// the critical path its plan implies — each KCP step, each management stage
// and each rack take as long as their slowest server. Goal ≤ 1.05. It also
// reports the mean orchestration overhead per serial step.
func BenchmarkUpgradeCriticalPath(b *testing.B) {
	b.Run("four-rack", func(b *testing.B) { benchUpgrade(b, "../examples/four-rack.yaml") })
	b.Run("sixteen-rack", func(b *testing.B) {
		inv := lab.SyntheticInventory("site-p", 16, 2, 8)
		inv.BMCCredentials = map[string]model.CredentialRef{"default": {UsernameEnv: "BMC_USERNAME", PasswordEnv: "BMC_PASSWORD"}}
		data, err := yaml.Marshal(inv)
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(b.TempDir(), "sixteen.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		benchUpgrade(b, path)
	})
}

func benchUpgrade(b *testing.B, inventory string) {
	for i := 0; i < b.N; i++ {
		env := e2e.Start(b, inventory, e2e.Options{Timings: model.LabTimings{Boot: model.Duration(500 * time.Millisecond),
			Reimage: model.Duration(2 * time.Second), PowerTransition: model.Duration(200 * time.Millisecond), Drain: model.Duration(200 * time.Millisecond)}})
		ctx := context.Background()
		zero := 0
		start := time.Now()
		run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.UpgradeID(env.Cluster), TaskQueue: api.TaskQueue},
			api.RuntimeUpgradeWorkflowName, api.UpgradeInput{Cluster: env.Cluster, TargetVersion: "4.2.0",
				UpdateStrategy: model.UpdateStrategy{WaitTimeMinutes: &zero}, DrainTimeout: 5 * time.Second, VMShutdownTimeout: 5 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		var st api.UpgradeStatus
		if err := run.Get(ctx, &st); err != nil {
			b.Fatal(err)
		}
		wall := time.Since(start)
		// The critical path from the servers' own durations.
		dur := func(bmm string) time.Duration {
			d, err := env.Client.DescribeWorkflowExecution(ctx, api.ServerUpgradeID(env.Cluster, bmm), "")
			if err != nil {
				b.Fatal(err)
			}
			info := d.GetWorkflowExecutionInfo()
			return info.GetCloseTime().AsTime().Sub(info.GetStartTime().AsTime())
		}
		slowest := func(names []string) time.Duration {
			var m time.Duration
			for _, n := range names {
				m = max(m, dur(n))
			}
			return m
		}
		var critical time.Duration
		steps := 0
		for _, k := range st.Plan.ControlPlane {
			if k.Action != "retire" && !k.Skip {
				critical += dur(k.BMM)
				steps++
			}
		}
		for _, g := range st.Plan.Management {
			for _, stage := range g.Stages {
				critical += slowest(stage)
				steps++
			}
		}
		for _, r := range st.Plan.Racks {
			critical += slowest(r.Servers)
			steps++
		}
		b.ReportMetric(wall.Seconds(), "s-wall")
		b.ReportMetric(critical.Seconds(), "s-critical")
		b.ReportMetric(wall.Seconds()/critical.Seconds(), "ratio")
		b.ReportMetric(float64((wall-critical).Milliseconds())/float64(steps), "ms-overhead/step")
	}
}
