package upgrade

import (
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/upgradeplan"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// touched lists the steps the fake site saw on bmm.
func touched(f *wftest.FakeSite, bmm string) []string {
	var out []string
	for _, c := range f.CallLog() {
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
	f := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	const marked = "rack2-c3"
	b := f.Bmm(marked)
	b.DetailedStatus, b.DetailedStatusMessage, b.PowerState, b.ReadyState = model.BMMError, model.UnhealthyMessage, model.PowerOff, model.ReadyUnknown
	f.Nodes[marked].Exists = false // the ladder deleted its node

	st := wftest.RunUpgrade(t, f, RuntimeUpgradeWorkflow)
	require.Equal(t, model.ClusterRunning, st.DetailedStatus, st.DetailedStatusMessage)
	require.Equal(t, []upgradeplan.Skipped{{BMM: marked, Role: "compute",
		Reason: "marked Unhealthy and powered off by remediation: only replace returns it to service"}}, st.Plan.Skipped)
	require.Empty(t, touched(f, marked), "an out-of-service server sees no step")
	require.NotContains(t, f.Reimages, marked)
	got := f.LedgerBMM(marked)
	require.Equal(t, model.UnhealthyMessage, got.DetailedStatusMessage, "the mark stays")
	require.Equal(t, "4.1.2", got.RuntimeVersion)
	// rack2 counts seven servers: 80 % of seven is six.
	require.Equal(t, "rack2", st.Racks[1].Name)
	require.Equal(t, 7, st.Racks[1].Total)
	require.Equal(t, 6, st.Racks[1].Required)
	require.Equal(t, 7, st.Racks[1].Succeeded)
	require.Equal(t, "4.2.0", f.St.Cluster.RuntimeVersion, "every in-service server runs the target")
}

// A server whose reimage failed leaves the cluster Running on its old
// version, mixed, the server named; starting the same target again
// reimages exactly that server, says so in the plan, and completes.
func TestSameTargetAgainFinishesTheServerLeftBehind(t *testing.T) {
	f := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	const left = "rack3-c2"
	f.Failing[left] = "image checksum mismatch"

	first := wftest.RunUpgrade(t, f, RuntimeUpgradeWorkflow)
	require.Equal(t, model.ClusterRunning, first.DetailedStatus)
	require.Contains(t, first.DetailedStatusMessage, "completed except "+left+" (failed; runtime mixed: 4.1.2 and 4.2.0)")
	require.Equal(t, "4.1.2", f.St.Cluster.RuntimeVersion, "the cluster does not run the target yet")
	require.Equal(t, "4.2.0", f.St.UpgradeTarget, "the upgrade is still owed")
	require.Equal(t, first.DetailedStatusMessage, f.St.Cluster.DetailedStatusMessage)
	require.Equal(t, "mixed (4.1.2, 4.2.0)", upgradeplan.RuntimeLabel(f.St.Cluster))

	delete(f.Failing, left)
	before := len(f.Reimages)
	second := wftest.RunUpgrade(t, f, RuntimeUpgradeWorkflow)
	require.Equal(t, model.ClusterRunning, second.DetailedStatus, second.DetailedStatusMessage)
	require.True(t, second.Plan.Resume)
	require.Equal(t, []string{left}, second.Plan.Finishing)
	require.Equal(t, []string{left}, f.Reimages[before:], "exactly the server left behind is reimaged")
	require.Equal(t, "Runtime upgrade to 4.2.0 completed", second.DetailedStatusMessage)
	require.Equal(t, "4.2.0", f.St.Cluster.RuntimeVersion)
	require.Empty(t, f.St.UpgradeTarget)
	kcp, spare := wftest.PlacedRoles(f)
	require.Len(t, kcp, 3, "the re-run promotes no second spare")
	require.Equal(t, model.BMMAvailable, f.Bmm(spare).DetailedStatus)
	require.Equal(t, "4.2.0", upgradeplan.RuntimeLabel(f.St.Cluster))
}

// A server an earlier run failed and left cordoned, then brought back on
// the target by a remediation: the same target again gives its node back
// (uncordon) without reimaging it.
func TestSameTargetAgainUncordonsTheServerBroughtBack(t *testing.T) {
	f := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	const left = "rack3-c2"
	f.Failing[left] = "image checksum mismatch"
	wftest.RunUpgrade(t, f, RuntimeUpgradeWorkflow)
	require.Equal(t, model.Cordoned, f.LedgerBMM(left).CordonStatus, "left cordoned")

	delete(f.Failing, left)
	f.Set(left, func(n *wftest.FakeNode) { n.Version, n.Ready = "4.2.0", model.ReadyTrue })
	b := f.Bmm(left) // as a remediation's reprovision leaves it
	b.RuntimeVersion, b.DetailedStatus, b.DetailedStatusMessage, b.ReadyState = "4.2.0", model.BMMProvisioned, "", model.ReadyTrue
	before := len(f.Reimages)
	second := wftest.RunUpgrade(t, f, RuntimeUpgradeWorkflow)
	require.Equal(t, "Runtime upgrade to 4.2.0 completed", second.DetailedStatusMessage)
	require.Len(t, f.Reimages, before, "nothing reimaged")
	require.Equal(t, model.Uncordoned, f.LedgerBMM(left).CordonStatus)
	require.Contains(t, f.CallLog(), "Uncordon "+left)
}
