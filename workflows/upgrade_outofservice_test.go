package workflows

import (
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/stretchr/testify/require"
)

// runUpgrade runs a whole upgrade (wf, RuntimeUpgradeWorkflow) to 4.2.0
// on f in a fresh environment.
func runUpgrade(t *testing.T, f *fakeSite, wf any) api.UpgradeStatus {
	t.Helper()
	env := f.newEnv()
	env.ExecuteWorkflow(wf, upgradeInput(model.UpdateStrategy{WaitTimeMinutes: intp(0)}))
	require.NoError(t, env.GetWorkflowError())
	var st api.UpgradeStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	return st
}

// touched lists the steps the fake site saw on bmm.
func touched(f *fakeSite, bmm string) []string {
	var out []string
	for _, c := range f.callLog() {
		if strings.HasSuffix(c, " "+bmm) {
			out = append(out, c)
		}
	}
	return out
}

// A compute that remediation marked Unhealthy and powered off is in no
// rack of the plan, never touched, keeps its mark, and is left out of its
// rack's threshold.
func TestUpgradeLeavesAnOutOfServiceComputeAlone(t *testing.T) {
	f := newFakeSite(t, "../examples/four-rack.yaml")
	const marked = "rack2-c3"
	b := f.bmm(marked)
	b.DetailedStatus, b.DetailedStatusMessage, b.PowerState, b.ReadyState = model.BMMError, model.UnhealthyMessage, model.PowerOff, model.ReadyUnknown
	f.nodes[marked].exists = false // the ladder deleted its node

	st := runUpgrade(t, f, RuntimeUpgradeWorkflow)
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	require.Equal(t, []upgradeplan.Skipped{{BMM: marked, Role: "compute",
		Reason: "marked Unhealthy and powered off by remediation: only replace returns it to service"}}, st.Plan.Skipped)
	require.Empty(t, touched(f, marked), "an out-of-service server sees no step")
	require.NotContains(t, f.reimages, marked)
	got := f.ledgerBMM(marked)
	require.Equal(t, model.UnhealthyMessage, got.DetailedStatusMessage, "the mark stays")
	require.Equal(t, "4.1.2", got.RuntimeVersion)
	// rack2 counts seven servers: 80 % of seven is six.
	require.Equal(t, "rack2", st.Racks[1].Name)
	require.Equal(t, 7, st.Racks[1].Total)
	require.Equal(t, 6, st.Racks[1].Required)
	require.Equal(t, 7, st.Racks[1].Succeeded)
	require.Equal(t, "4.2.0", f.st.Cluster.RuntimeVersion, "every in-service server runs the target")
}

// A server whose reimage failed leaves the cluster Running on its old
// version, mixed, the server named; starting the same target again
// reimages exactly that server, says so in the plan, and completes.
func TestSameTargetAgainFinishesTheServerLeftBehind(t *testing.T) {
	f := newFakeSite(t, "../examples/four-rack.yaml")
	const left = "rack3-c2"
	f.failing[left] = "image checksum mismatch"

	first := runUpgrade(t, f, RuntimeUpgradeWorkflow)
	require.Equal(t, model.ClusterRunning, first.DetailedStatus)
	require.Contains(t, first.DetailedStatusMessage, "completed except "+left+" (failed; runtime mixed: 4.1.2 and 4.2.0)")
	require.Equal(t, "4.1.2", f.st.Cluster.RuntimeVersion, "the cluster does not run the target yet")
	require.Equal(t, "4.2.0", f.st.UpgradeTarget, "the upgrade is still owed")
	require.Equal(t, first.DetailedStatusMessage, f.st.Cluster.DetailedStatusMessage)
	require.Equal(t, "mixed (4.1.2, 4.2.0)", upgradeplan.RuntimeLabel(f.st.Cluster))

	delete(f.failing, left)
	before := len(f.reimages)
	second := runUpgrade(t, f, RuntimeUpgradeWorkflow)
	require.Equal(t, model.ClusterRunning, second.DetailedStatus, second.DetailedStatusMessage)
	require.True(t, second.Plan.Resume)
	require.Equal(t, []string{left}, second.Plan.Finishing)
	require.Equal(t, []string{left}, f.reimages[before:], "exactly the server left behind is reimaged")
	require.Equal(t, "Runtime upgrade to 4.2.0 completed", second.DetailedStatusMessage)
	require.Equal(t, "4.2.0", f.st.Cluster.RuntimeVersion)
	require.Empty(t, f.st.UpgradeTarget)
	kcp, spare := placedRoles(f)
	require.Len(t, kcp, 3, "the re-run promotes no second spare")
	require.Equal(t, model.BMMAvailable, f.bmm(spare).DetailedStatus)
	require.Equal(t, "4.2.0", upgradeplan.RuntimeLabel(f.st.Cluster))
}

// While an upgrade owes servers, a reimage action installs the target on
// a server whose phase has run, not the server's own old version.
func TestReimageInstallsTheVersionTheClusterConvergesTo(t *testing.T) {
	f := newActionSite(t)
	f.failing[compute] = "image checksum mismatch"
	runUpgrade(t, f, RuntimeUpgradeWorkflow)
	require.Equal(t, "4.1.2", f.ledgerBMM(compute).RuntimeVersion)
	delete(f.failing, compute)
	b := f.bmm(compute)
	b.DetailedStatus, b.DetailedStatusMessage = model.BMMProvisioned, "" // as an operator's repair leaves it

	res, err := f.runAction(t, act(api.ActionReimage, compute))
	require.NoError(t, err)
	require.Contains(t, res.Message, "on runtime 4.2.0")
	require.Equal(t, "4.2.0", f.ledgerBMM(compute).RuntimeVersion)
	require.Equal(t, compute+"@4.2.0", f.reimages[len(f.reimages)-1])
}

// A server an earlier run failed and left cordoned, then brought back on
// the target by a remediation: the same target again gives its node back
// (uncordon) without reimaging it.
func TestSameTargetAgainUncordonsTheServerBroughtBack(t *testing.T) {
	f := newFakeSite(t, "../examples/four-rack.yaml")
	const left = "rack3-c2"
	f.failing[left] = "image checksum mismatch"
	runUpgrade(t, f, RuntimeUpgradeWorkflow)
	require.Equal(t, model.Cordoned, f.ledgerBMM(left).CordonStatus, "left cordoned")

	delete(f.failing, left)
	f.set(left, func(n *fakeNode) { n.version, n.ready = "4.2.0", model.ReadyTrue })
	b := f.bmm(left) // as a remediation's reprovision leaves it
	b.RuntimeVersion, b.DetailedStatus, b.DetailedStatusMessage, b.ReadyState = "4.2.0", model.BMMProvisioned, "", model.ReadyTrue
	before := len(f.reimages)
	second := runUpgrade(t, f, RuntimeUpgradeWorkflow)
	require.Equal(t, "Runtime upgrade to 4.2.0 completed", second.DetailedStatusMessage)
	require.Len(t, f.reimages, before, "nothing reimaged")
	require.Equal(t, model.Uncordoned, f.ledgerBMM(left).CordonStatus)
	require.Contains(t, f.callLog(), "Uncordon "+left)
}
