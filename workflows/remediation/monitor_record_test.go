package remediation

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

func TestHealthPatches(t *testing.T) {
	since := time.Date(2026, 11, 22, 23, 1, 2, 0, time.UTC)
	c := model.Cluster{BMMs: []model.BMM{
		{Name: "m1", ReadyState: model.ReadyTrue},
		{Name: "m2", ReadyState: model.ReadyTrue},
		{Name: "m3", ReadyState: model.ReadyTrue},
		{Name: "off", ReadyState: model.ReadyFalse, PowerState: model.PowerOff},
		{Name: "spare", ReadyState: model.ReadyTrue, DetailedStatus: model.BMMAvailable},
		{Name: "back", ReadyState: model.ReadyUnknown, ReadOnlyRootFS: true},
	}}
	ns := []kube.NodeStatus{
		{Node: "m1", Exists: true, Ready: "True"},
		{Node: "m2", Exists: true, Ready: "Unknown", ReadyTransition: since},
		{Node: "m3", Exists: true, Ready: "True", ReadOnlyRootFS: true},
		{Node: "off", Exists: true, Ready: "Unknown"},
		{Node: "spare"},
		{Node: "back", Exists: true, Ready: "True", ReadyTransition: since},
	}
	tr, fa := true, false
	require.Equal(t, []api.BMMPatch{
		{BMM: "m2", ReadyState: api.Str("Unknown"), ReadySince: &since},
		{BMM: "m3", ReadOnlyRootFS: &tr},
		{BMM: "back", ReadyState: api.Str("True"), ReadySince: &since, ReadOnlyRootFS: &fa},
	}, healthPatches(c, ns), "only changes; nothing for a powered-off BMM or a missing node")
}

// The ledger (what `cluster show` prints) shows a node gone Unknown, and a
// read-only root filesystem, within one monitor interval, long before any
// remediation threshold.
func TestMonitorRecordsObservedHealthWithinOneInterval(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(time.Minute)})
	var atRound2 []model.BMM
	m.after(30*time.Second, func() {
		r.Set("rack2-mgmt1", func(n *wftest.FakeNode) { n.Ready = model.ReadyUnknown })
		r.Set("rack1-c1", func(n *wftest.FakeNode) { n.Rofs = true })
	})
	m.after(time.Minute+30*time.Second, func() {
		atRound2 = []model.BMM{r.LedgerBMM("rack2-mgmt1"), r.LedgerBMM("rack1-c1"), r.LedgerBMM("rack1-c2")}
	})
	m.run(2 * time.Minute)
	require.Len(t, atRound2, 3)
	require.Equal(t, model.ReadyUnknown, atRound2[0].ReadyState, "the KCP's Unknown is recorded")
	require.True(t, atRound2[1].ReadOnlyRootFS, "the read-only root filesystem is recorded")
	require.Equal(t, model.ReadyTrue, atRound2[1].ReadyState)
	require.Equal(t, model.ReadyTrue, atRound2[2].ReadyState, "a healthy server is left as it was")
	require.False(t, atRound2[2].ReadOnlyRootFS)
}

// A Node its kubelet registered anew shows the kubelet's --node-labels: a
// role rackroll moved since, no management group. The next round hands the
// ledger what it saw, and the ledger labels the node again; a node as the
// ledger labelled it is left alone.
func TestMonitorRestoresTheLabelsOfANodeRegisteredAnew(t *testing.T) {
	c := model.Cluster{BMMs: []model.BMM{
		{Name: "m1", Roles: []model.Role{model.RoleManagement}, ManagementGroup: "a"},
		{Name: "c1", Roles: []model.Role{model.RoleCompute}},
		{Name: "gone", Roles: []model.Role{model.RoleCompute}},
	}}
	ns := []kube.NodeStatus{
		{Node: "m1", Exists: true, Labels: map[string]string{model.LabelRole: "kcp", model.LabelRack: "r1"}},
		{Node: "c1", Exists: true, Labels: map[string]string{model.LabelRole: "compute"}},
		{Node: "gone"},
	}
	require.Equal(t, []api.BMMPatch{{BMM: "m1", NodeLabels: map[string]string{model.LabelRole: "kcp", model.LabelManagementGroup: ""}}},
		labelPatches(c, ns), "only the node that differs, with what it showed of the ledger's labels")

	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	const b = "rack1-mgmt2"
	require.True(t, r.Bmm(b).HasRole(model.RoleManagement))
	m := newMonRun(t, r, model.RemediationSpec{Interval: dur(time.Minute)})
	m.after(30*time.Second, func() {
		r.Set(b, func(n *wftest.FakeNode) { n.Labels = map[string]string{model.LabelRole: "kcp"} })
	})
	m.run(2*time.Minute + 30*time.Second)
	require.Contains(t, r.Log, "relabel "+b)
	require.Nil(t, r.Nodes[b].Labels, "the node shows the ledger's labels again")
}
