package cli_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
)

// upgradeInput is RuntimeUpgradeWorkflow's input as an operator types it:
// the operator API's field names, pausing after every compute rack and no
// wait between racks. Written out rather than marshalled so a renamed JSON
// tag fails here.
func upgradeInput(cluster, version string) string {
	return fmt.Sprintf(`{"cluster":%q,"targetVersion":%q,"updateStrategy":{"strategyType":"PauseAfterRack","thresholdType":"PercentSuccess","thresholdValue":80,"waitTimeMinutes":0}}`, cluster, version)
}

// upgradeWithTemporal: start with `temporal workflow start`; continue-update
// is refused while the upgrade runs, a stray continue signal does not skip
// the pause after rack1, the paused status prints as JSON and the update
// continue-update, accepted now, takes the upgrade to the end.
func upgradeWithTemporal(t *testing.T, c *clis) {
	cluster, id := c.env.Cluster, api.UpgradeID(c.env.Cluster)
	temporalStart(t, c, api.RuntimeUpgradeWorkflowName, id, upgradeInput(cluster, "4.2.0"),
		fmt.Sprintf("Runtime upgrade of %s to %s", cluster, "4.2.0"), "runtime-upgrade")

	// The first pause comes after the control plane, the management servers
	// and rack1, so the upgrade is not paused yet.
	_, errOut, ok := c.TemporalMayFail("workflow", "update", "execute", "--workflow-id", id, "--name", api.UpdateContinue)
	if ok || !strings.Contains(errOut, "upgrade of "+cluster+" is not paused") {
		t.Fatalf("continue-update while running: exit ok=%v, stderr %q; want the validator's refusal", ok, errOut)
	}
	c.Temporal("workflow", "signal", "--workflow-id", id, "--name", api.SignalContinue)

	waitPaused(t, c, id)
	var st api.UpgradeStatus
	temporalQuery(t, c, id, api.QueryStatus, &st)
	if st.Phase != api.PhaseCompute || st.DetailedStatus != model.ClusterUpdatePaused || st.TargetVersion != "4.2.0" ||
		st.Strategy.StrategyType != model.StrategyPauseAfterRack || len(st.Racks) != 2 ||
		st.Racks[0].State != api.StateSucceeded || st.Racks[1].State != api.StatePending {
		t.Fatalf("paused status: phase %s, %s (%s), racks %+v", st.Phase, st.DetailedStatus, st.DetailedStatusMessage, st.Racks)
	}
	requireBMM(t, c, "rack1-c1", func(b model.BMM) string { return b.RuntimeVersion }, "4.2.0")
	requireBMM(t, c, "rack2-c1", func(b model.BMM) string { return b.RuntimeVersion }, "4.1.2")

	out := c.Temporal("workflow", "update", "execute", "--workflow-id", id, "--name", api.UpdateContinue)
	if !strings.Contains(out, "continuing: rack rack1 done") {
		t.Fatalf("continue-update printed %q", out)
	}
	waitUpgraded(t, c, id, "4.2.0")
}

// upgradeWithTctl: the same with tctl — start, query and, at the pause,
// signal continue-update.
func upgradeWithTctl(t *testing.T, c *clis) {
	cluster, id := c.env.Cluster, api.UpgradeID(c.env.Cluster)
	out := c.Tctl("workflow", "start", "--taskqueue", api.TaskQueue, "--workflow_type", api.RuntimeUpgradeWorkflowName,
		"--workflow_id", id, "--input", upgradeInput(cluster, "4.3.0"),
		"--search_attr_key", api.SearchAttrCluster+"|"+api.SearchAttrOperation, "--search_attr_value", quote(cluster)+"|"+quote("runtime-upgrade"))
	if !strings.Contains(out, "Started Workflow Id: "+id) {
		t.Fatalf("tctl start printed %q", out)
	}
	waitPaused(t, c, id)
	var st api.UpgradeStatus
	tctlQuery(t, c, id, api.QueryStatus, &st)
	if st.TargetVersion != "4.3.0" || st.DetailedStatus != model.ClusterUpdatePaused || st.Racks[0].State != api.StateSucceeded {
		t.Fatalf("tctl status: %s %s (%s), racks %+v", st.TargetVersion, st.DetailedStatus, st.DetailedStatusMessage, st.Racks)
	}
	c.Tctl("workflow", "signal", "--workflow_id", id, "--name", api.SignalContinue)
	waitUpgraded(t, c, id, "4.3.0")
}

// upgradeCancel: cancel-update (the Update) stops an upgrade after the
// servers in flight; the cluster keeps its version.
func upgradeCancel(t *testing.T, c *clis) {
	cluster, id := c.env.Cluster, api.UpgradeID(c.env.Cluster)
	temporalStart(t, c, api.RuntimeUpgradeWorkflowName, id, upgradeInput(cluster, "4.4.0"),
		fmt.Sprintf("Runtime upgrade of %s to %s", cluster, "4.4.0"), "runtime-upgrade")
	out := c.Temporal("workflow", "update", "execute", "--workflow-id", id, "--name", api.UpdateCancel)
	if !strings.Contains(out, "cancelling after the servers in flight") {
		t.Fatalf("cancel-update printed %q", out)
	}
	st := waitClosed(t, c, id)
	if st.DetailedStatus != api.StateCancelled {
		t.Fatalf("cancelled upgrade ended %s (%s)", st.DetailedStatus, st.DetailedStatusMessage)
	}
	if v := c.env.State().Cluster.RuntimeVersion; v != "4.3.0" {
		t.Fatalf("cluster runtimeVersion %q after a cancelled upgrade, want 4.3.0", v)
	}
}

// waitPaused polls the status query (through the SDK: this is the test's
// clock, not what it asserts) until the upgrade pauses.
func waitPaused(t *testing.T, c *clis, id string) {
	t.Helper()
	c.env.Eventually(3*time.Minute, id+" pauses", func() bool {
		v, err := c.env.Client.QueryWorkflow(context.Background(), id, "", api.QueryStatus)
		var st api.UpgradeStatus
		if err != nil || v.Get(&st) != nil {
			return false
		}
		if st.FinishedAt != nil {
			t.Fatalf("%s ended before pausing: %s (%s)", id, st.DetailedStatus, st.DetailedStatusMessage)
		}
		return st.DetailedStatus == model.ClusterUpdatePaused
	})
}

// waitClosed waits for the upgrade's result.
func waitClosed(t *testing.T, c *clis, id string) api.UpgradeStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var st api.UpgradeStatus
	if err := c.env.Client.GetWorkflow(ctx, id, "").Get(ctx, &st); err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return st
}

// waitUpgraded waits for a successful end and checks the ledger.
func waitUpgraded(t *testing.T, c *clis, id, version string) {
	t.Helper()
	st := waitClosed(t, c, id)
	if st.Phase != api.PhaseDone || st.DetailedStatus != model.ClusterRunning {
		t.Fatalf("%s ended in phase %s, %s (%s)", id, st.Phase, st.DetailedStatus, st.DetailedStatusMessage)
	}
	cs := c.env.State()
	if cs.Cluster.RuntimeVersion != version || cs.UpgradeTarget != "" || len(cs.Leases) != 0 {
		t.Fatalf("ledger after %s: runtimeVersion %q, upgradeTarget %q, %d leases", id, cs.Cluster.RuntimeVersion, cs.UpgradeTarget, len(cs.Leases))
	}
}
