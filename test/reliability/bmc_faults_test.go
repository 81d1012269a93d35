package reliability

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/worker/wiring"
	enumspb "go.temporal.io/api/enums/v1"
)

// Every BMC misbehaves the way real ones do: 10 % of requests answered
// 5xx, 2 % held until the client gives up, a share of PATCHes answered 412
// despite the right ETag, and slow power and install tasks, so task
// monitors are polled many times. The upgrade completes through the
// activities' retries. One compute BMC is unreachable (full size): that
// server fails within the activities' retry budget, counts against its
// rack's threshold (which tolerates one failure) and the upgrade goes on.
func TestBMCFaultsDuringUpgrade(t *testing.T) {
	t.Parallel()
	inventory, unreachable, threshold := "../../examples/one-rack.yaml", "", 75
	if full {
		// Eight compute servers a rack: 7/8 is above 80 %.
		inventory, unreachable, threshold = "../../examples/four-rack.yaml", "rack2-c3", 80
	}
	// Slow tasks: a task monitor answers Running for a while (the fast
	// e2e timings are 100 ms power, 500 ms install); the full size slower.
	slow := lab.Timings{Boot: model.Duration(500 * time.Millisecond), Reimage: model.Duration(time.Second),
		PowerTransition: model.Duration(500 * time.Millisecond), Drain: model.Duration(200 * time.Millisecond)}
	if full {
		slow.Boot, slow.Reimage, slow.PowerTransition = model.Duration(time.Second), model.Duration(2*time.Second), model.Duration(time.Second)
	}
	// The in-process worker, because a held request costs RequestTimeout:
	// 30 s by default, 2 s here, so 2 % of requests hanging stays cheap.
	s := startSite(t, inventory, siteOptions{Mutate: noLabSection, Timings: slow,
		InProcess: &wiring.Options{PollInterval: 200 * time.Millisecond, BMCRequestTimeout: 2 * time.Second}})
	ctx := s.Context(30 * time.Minute)
	for _, m := range s.Lab.Machines() {
		for _, f := range []struct {
			kind faults.Kind
			rate float64
		}{{"bmc-5xx", 0.10}, {"bmc-timeout", 0.02}, {"stale-etag", 0.25}} {
			if err := s.Lab.SetFault(m.Name, f.kind, f.rate, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	if unreachable != "" {
		if err := s.Lab.SetFault(unreachable, "bmc-unreachable", 0, false); err != nil {
			t.Fatal(err)
		}
	}
	id := api.UpgradeID(s.Cluster)
	s.start(ctx, id, api.RuntimeUpgradeWorkflowName, upgradeInput(s, model.UpdateStrategy{StrategyType: model.StrategyRack,
		ThresholdType: model.ThresholdPercentSuccess, ThresholdValue: threshold}))
	began := time.Now()
	st, ok := upgradeOutcome(t, s, ctx)
	t.Logf("upgrade under BMC faults took %v", time.Since(began).Round(time.Second))

	const sc = "BMC faults"
	checkBool(t, sc+": upgrade completed", ok)
	failed := map[string]bool{}
	if unreachable != "" {
		failed[unreachable] = true
		counted := false
		for _, r := range st.Racks {
			for _, sv := range r.Servers {
				if sv.Name == unreachable && sv.State == api.StateFailed && r.Failed == 1 {
					counted = true
				}
			}
		}
		checkBool(t, sc+": unreachable BMC counted failed in its rack", counted)
		// How long the server took to fail: a figure, not a goal (the
		// machine is shared); the goal is that it failed at all.
		if d, err := s.Client.DescribeWorkflowExecution(ctx, api.ServerUpgradeID(s.Cluster, unreachable), ""); err == nil &&
			d.WorkflowExecutionInfo.Status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			took := d.WorkflowExecutionInfo.CloseTime.AsTime().Sub(d.WorkflowExecutionInfo.StartTime.AsTime()).Round(time.Second)
			table.info(sc+": unreachable server's upgrade ended after", "bounded (retry budget)", took.String())
		}
	}
	checkUpgradeResult(t, s, sc, st, failed)
	checkSecrets(t, s, sc, targetVersion)
}
