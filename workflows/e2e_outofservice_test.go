package workflows_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

// upgradeHalf runs an upgrade to 4.2.0 where half of each rack must
// succeed (so one failed compute does not pause it) and returns its status.
func upgradeHalf(ctx context.Context, t *testing.T, env *e2e.Env) api.UpgradeStatus {
	t.Helper()
	zero := 0
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.UpgradeID(env.Cluster), TaskQueue: api.TaskQueue},
		api.RuntimeUpgradeWorkflowName, api.UpgradeInput{Cluster: env.Cluster, TargetVersion: "4.2.0",
			UpdateStrategy: model.UpdateStrategy{ThresholdType: model.ThresholdPercentSuccess, ThresholdValue: 50, WaitTimeMinutes: &zero},
			DrainTimeout:   5 * time.Second, VMShutdownTimeout: 5 * time.Second})
	require.NoError(t, err)
	var st api.UpgradeStatus
	wctx, cancel := context.WithTimeout(ctx, 7*time.Minute)
	defer cancel()
	if err := run.Get(wctx, &st); err != nil {
		if v, qerr := env.Client.QueryWorkflow(ctx, api.UpgradeID(env.Cluster), "", api.QueryStatus); qerr == nil {
			_ = v.Get(&st)
		}
		t.Fatalf("upgrade did not end: %v; phase %s, %s: %s", err, st.Phase, st.DetailedStatus, st.DetailedStatusMessage)
	}
	return st
}

// On the two-rack lab: a compute that remediation marked Unhealthy and
// powered off is skipped by a full upgrade (never touched, out of its
// rack's threshold); a compute whose reimage fails is left behind with the
// cluster Running on its old version, mixed; starting the same target
// again reimages exactly that server and completes the upgrade.
func TestE2EOutOfServiceSkippedAndLeftBehindFinished(t *testing.T) {
	env := startRemediationSite(t)
	const off, left = "rack1-c1", "rack2-c2"
	ctx := env.Context(16 * time.Minute)
	require.NoError(t, env.Lab.SetFault(off, faults.ReimageFails, 0, false))
	require.NoError(t, env.Lab.SetFault(off, faults.ReadOnlyRootFS, 0, false))
	rs := remediationOf(ctx, t, env, off)
	t.Logf("remediation of %s: %s", off, rs.Outcome)
	require.Contains(t, rs.Outcome, "marked Unhealthy; powered off")
	// The monitor stops here: a server left behind by a failed reimage
	// would otherwise be remediated before the operator runs it again.
	require.NoError(t, env.Client.TerminateWorkflow(ctx, api.MonitorID(env.Cluster), "", "e2e: upgrade without remediation"))
	require.NoError(t, env.Lab.SetFault(left, faults.ReimageFails, 0, false))
	before := env.Lab.ReimageCounts()

	first := upgradeHalf(ctx, t, env)
	t.Logf("first upgrade: %s", first.DetailedStatusMessage)
	require.Equal(t, model.ClusterRunning, first.DetailedStatus, first.DetailedStatusMessage)
	require.Contains(t, first.DetailedStatusMessage, "completed except "+left+" (failed; runtime mixed: 4.1.2 and 4.2.0)")
	require.Equal(t, []string{off}, skippedNames(first.Plan.Skipped))
	require.Equal(t, 3, first.Racks[0].Total, "rack1 counts its three in-service computes")
	require.Equal(t, 2, first.Racks[0].Required, "50 % of three")
	cs := env.State()
	require.Equal(t, "4.1.2", cs.Cluster.RuntimeVersion, "the cluster does not run the target while a server is left behind")
	require.Equal(t, "4.2.0", cs.UpgradeTarget)
	require.Equal(t, "mixed (4.1.2, 4.2.0)", upgradeplan.RuntimeLabel(cs.Cluster))
	b := bmmOf(t, env, off)
	require.Equal(t, model.UnhealthyMessage, b.DetailedStatusMessage, "the mark stays")
	require.Equal(t, model.PowerOff, b.PowerState)
	require.Equal(t, "Off", env.Lab.Machine(off).BMC.State().Power)
	afterFirst := env.Lab.ReimageCounts()
	require.Equal(t, before[off], afterFirst[off], "the out-of-service compute is never reimaged")

	require.NoError(t, env.Lab.SetFault(left, faults.ReimageFails, 0, true))
	second := upgradeHalf(ctx, t, env)
	require.Equal(t, model.ClusterRunning, second.DetailedStatus, second.DetailedStatusMessage)
	require.Equal(t, "Runtime upgrade to 4.2.0 completed", second.DetailedStatusMessage)
	require.True(t, second.Plan.Resume)
	require.Equal(t, []string{left}, second.Plan.Finishing)
	afterSecond := env.Lab.ReimageCounts()
	want := maps.Clone(afterFirst)
	want[left]++
	require.Equal(t, want, afterSecond, "the second run reimages exactly the server left behind")
	cs = env.State()
	require.Equal(t, "4.2.0", cs.Cluster.RuntimeVersion)
	require.Empty(t, cs.UpgradeTarget)
	require.Equal(t, "4.2.0", bmmOf(t, env, left).RuntimeVersion)
	require.Equal(t, model.UnhealthyMessage, bmmOf(t, env, off).DetailedStatusMessage)
	require.Equal(t, before[off], afterSecond[off])
}

func skippedNames(ss []upgradeplan.Skipped) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.BMM)
	}
	return out
}
