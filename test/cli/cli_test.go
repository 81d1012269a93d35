package cli_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
)

// TestCLIs runs every user-facing workflow from both CLIs against one lab
// site (two racks). The steps share the site and run in order: starting a
// dev server and a lab per step would triple the time.
func TestCLIs(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: twoComputePerRack})
	c := newCLIs(t, env)
	step := func(name string, f func(*testing.T, *clis)) {
		if !t.Run(name, func(t *testing.T) { c.t = t; f(t, c) }) {
			t.FailNow() // later steps build on this one's effects
		}
	}
	step("ClusterWorkflow", clusterState)
	step("BMMActionWorkflow", bmmActions)
	step("TroubleshootWorkflow", troubleshoot)
	step("RuntimeUpgradeWorkflow/temporal", upgradeWithTemporal)
	step("RuntimeUpgradeWorkflow/tctl", upgradeWithTctl)
	step("RuntimeUpgradeWorkflow/cancel", upgradeCancel)
	step("HealthMonitorWorkflow", healthMonitor)
	step("FleetWorkflow", fleetOfOne)
}

// clusterState queries the ledger with both CLIs.
func clusterState(t *testing.T, c *clis) {
	cluster := c.env.Cluster
	var st api.ClusterState
	temporalQuery(t, c, api.ClusterID(cluster), api.QueryState, &st)
	if st.Cluster.Name != cluster || len(st.Cluster.BMMs) != len(c.env.Inventory.Servers()) {
		t.Fatalf("state: cluster %q with %d BMMs, want %q with %d", st.Cluster.Name, len(st.Cluster.BMMs), cluster, len(c.env.Inventory.Servers()))
	}
	var st2 api.ClusterState
	tctlQuery(t, c, api.ClusterID(cluster), api.QueryState, &st2)
	if st2.Cluster.Name != cluster || st2.Cluster.RuntimeVersion != "4.1.2" {
		t.Fatalf("tctl state: cluster %q at %q, want %q at 4.1.2", st2.Cluster.Name, st2.Cluster.RuntimeVersion, cluster)
	}
}

// bmmActions cordons a compute server with the Temporal CLI, uncordons it
// with tctl and restarts it with the Temporal CLI, checking the ledger
// after each.
func bmmActions(t *testing.T, c *clis) {
	cluster, bmm := c.env.Cluster, "rack1-c1"
	input := func(action string) string {
		return mustJSON(t, api.ActionInput{Cluster: cluster, BMM: bmm, Action: action})
	}
	var res api.ActionResult
	temporalExecute(t, c, api.BMMActionWorkflowName, api.ActionID(cluster, bmm, 901), input(api.ActionCordon),
		api.ActionSummary(api.ActionCordon, bmm, cluster), api.ActionCordon, &res)
	if res.CordonStatus != model.Cordoned {
		t.Fatalf("cordon printed cordonStatus %q, want %s", res.CordonStatus, model.Cordoned)
	}
	requireBMM(t, c, bmm, func(b model.BMM) string { return b.CordonStatus }, model.Cordoned)

	id := api.ActionID(cluster, bmm, 902)
	out := c.Tctl("workflow", "start", "--taskqueue", api.TaskQueue, "--workflow_type", api.BMMActionWorkflowName,
		"--workflow_id", id, "--input", input(api.ActionUncordon))
	if !strings.Contains(out, "Started Workflow Id: "+id) {
		t.Fatalf("tctl start printed %q", out)
	}
	out = c.Tctl("workflow", "observe", "--workflow_id", id)
	decode(t, tctlOutput(t, out), &[]any{&res})
	if res.CordonStatus != model.Uncordoned {
		t.Fatalf("uncordon result cordonStatus %q, want %s", res.CordonStatus, model.Uncordoned)
	}
	requireBMM(t, c, bmm, func(b model.BMM) string { return b.CordonStatus }, model.Uncordoned)

	res = api.ActionResult{}
	temporalExecute(t, c, api.BMMActionWorkflowName, api.ActionID(cluster, bmm, 903), input(api.ActionRestart),
		api.ActionSummary(api.ActionRestart, bmm, cluster), api.ActionRestart, &res)
	if res.Action != api.ActionRestart || res.PowerState != model.PowerOn {
		t.Fatalf("restart printed action %q powerState %q", res.Action, res.PowerState)
	}
	if n := len(c.env.State().Leases); n != 0 {
		t.Fatalf("%d leases held after the actions: each action releases its own", n)
	}
}

// troubleshoot runs the unresponsive-BMM runbook; on a healthy lab the
// first rung (restart) resolves it.
func troubleshoot(t *testing.T, c *clis) {
	cluster, bmm := c.env.Cluster, "rack1-c2"
	var st api.TroubleshootStatus
	temporalExecute(t, c, api.TroubleshootWorkflowName, api.TroubleshootID(cluster, bmm),
		mustJSON(t, api.TroubleshootInput{Cluster: cluster, BMM: bmm, Problem: api.ProblemUnresponsive}),
		fmt.Sprintf("troubleshoot %s on %s of %s", api.ProblemUnresponsive, bmm, cluster), "troubleshoot", &st)
	if st.Phase != api.TroubleshootResolved || len(st.Steps) == 0 || st.Steps[0].Action != api.ActionRestart {
		t.Fatalf("troubleshoot printed phase %q, steps %+v; want Resolved by restart", st.Phase, st.Steps)
	}
}

// requireBMM checks one field of one BMM in the ledger.
func requireBMM(t *testing.T, c *clis, bmm string, field func(model.BMM) string, want string) {
	t.Helper()
	st := c.env.State()
	b, ok := st.Cluster.BMM(bmm)
	if !ok {
		t.Fatalf("ledger has no %s", bmm)
	}
	if got := field(*b); got != want {
		t.Fatalf("ledger: %s has %q, want %q", bmm, got, want)
	}
}

// twoComputePerRack keeps two compute servers per rack: the CLIs, not the
// rack's parallelism, are under test here, and two upgrades of four per
// rack would double the test's time. Two racks stay, so PauseAfterRack
// has a rack to pause after.
func twoComputePerRack(inv *model.Inventory) {
	for i := range inv.Racks {
		var keep []model.ServerSpec
		compute := 0
		for _, s := range inv.Racks[i].Servers {
			if s.Role == model.RoleCompute {
				if compute++; compute > 2 {
					continue
				}
			}
			keep = append(keep, s)
		}
		inv.Racks[i].Servers = keep
	}
}
