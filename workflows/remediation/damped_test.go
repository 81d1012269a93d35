package remediation

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

// A server whose every recovery works for a while but which breaks again
// within the damping window climbs its ladder one rung per incident and
// ends marked Unhealthy — never "one reprovision" for ever. The ledger
// keeps the position between the remediations.
func TestRemediationDampedLadder(t *testing.T) {
	for _, tc := range []struct {
		name, bmm string
		trig      remediate.Trigger
		sicken    func(n *wftest.FakeNode)
		incidents [][]string // steps of each remediation
		continued [][]remediate.Step
		outcome   string
	}{
		{name: "compute: reprovision, then Unhealthy and off", bmm: "rack1-c1", trig: remediate.ReadOnlyRootFS,
			sicken:    func(n *wftest.FakeNode) { n.Rofs = true },
			incidents: [][]string{{"reprovision:ok"}, {"mark-unhealthy:ok", "power-off:ok"}},
			continued: [][]remediate.Step{nil, {remediate.Reprovision}},
			outcome:   "reprovision failed; marked Unhealthy; powered off"},
		{name: "management: reboot, reprovision, then Unhealthy", bmm: "rack1-mgmt2", trig: remediate.NodeUnknown,
			sicken:    func(n *wftest.FakeNode) { n.Ready = model.ReadyUnknown },
			incidents: [][]string{{"reboot:ok"}, {"reprovision:ok"}, {"mark-unhealthy:ok"}},
			continued: [][]remediate.Step{nil, {remediate.Reboot}, {remediate.Reboot, remediate.Reprovision}},
			outcome:   "reboot and reprovision failed; marked Unhealthy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
			for i, want := range tc.incidents {
				r.Set(tc.bmm, tc.sicken)
				st := wftest.RunRemediation(t, r, tc.bmm, tc.trig, RemediationWorkflow, KCPFailoverWorkflow)
				require.Equal(t, want, ranSteps(st.Steps), "incident %d", i+1)
				var carried []remediate.Step
				for _, c := range st.Continued {
					require.Contains(t, c.Detail, "failed again within the damping window (24h0m0s)")
					carried = append(carried, c.Step)
				}
				require.Equal(t, tc.continued[i], carried, "incident %d", i+1)
				if i == len(tc.incidents)-1 {
					require.Contains(t, st.Outcome, tc.outcome)
				}
			}
			b := r.Bmm(tc.bmm)
			require.True(t, b.MarkedUnhealthy())
			require.Equal(t, remediate.RoleOf(*b), b.Ladder.Role)
			// Marked: the monitor no longer admits it, so no fourth round.
			d := remediate.Admit(remediate.Due{BMM: tc.bmm, Role: remediate.RoleOf(*b), Trigger: tc.trig},
				remediate.Situation{Cluster: r.St.Cluster, MaxConcurrentCompute: 5})
			require.False(t, d.Start)
		})
	}
}

// A KCP that recovered by reboot and fails again within the window goes
// on to its give-up steps: marked Unhealthy and failed over.
func TestRemediationDampedKCP(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	const kcp = "rack2-mgmt1"
	r.Set(kcp, func(n *wftest.FakeNode) { n.Ready = model.ReadyUnknown })
	st := wftest.RunRemediation(t, r, kcp, remediate.NodeUnknown, RemediationWorkflow, KCPFailoverWorkflow)
	require.Equal(t, []string{"reboot:ok"}, ranSteps(st.Steps))
	require.Equal(t, &model.LadderMark{Role: model.RoleKCP, Steps: []string{"reboot"}, At: r.Bmm(kcp).Ladder.At}, r.Bmm(kcp).Ladder)

	r.Set(kcp, func(n *wftest.FakeNode) { n.Ready = model.ReadyUnknown })
	st = wftest.RunRemediation(t, r, kcp, remediate.NodeUnknown, RemediationWorkflow, KCPFailoverWorkflow)
	require.Equal(t, []string{"mark-unhealthy:ok", "failover:ok"}, ranSteps(st.Steps))
	require.Equal(t, model.RoleManagement, r.Role(kcp), "relabelled by the failover")
	requireKCPCount(t, r, 3)
}

// Past the damping window the ladder starts afresh; a Replace forgets it.
func TestRemediationLadderAfresh(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	old := time.Now().Add(-25 * time.Hour)
	r.Bmm("rack1-c1").Ladder = &model.LadderMark{Role: model.RoleCompute, Steps: []string{"reprovision"}, At: old}
	r.Set("rack1-c1", func(n *wftest.FakeNode) { n.Rofs = true })
	st := wftest.RunRemediation(t, r, "rack1-c1", remediate.ReadOnlyRootFS, RemediationWorkflow, KCPFailoverWorkflow)
	require.Empty(t, st.Continued)
	require.Equal(t, []string{"reprovision:ok"}, ranSteps(st.Steps))

}
