package workflows

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
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
		sicken    func(n *fakeNode)
		incidents [][]string // steps of each remediation
		continued [][]remediate.Step
		outcome   string
	}{
		{name: "compute: reprovision, then Unhealthy and off", bmm: "rack1-c1", trig: remediate.ReadOnlyRootFS,
			sicken:    func(n *fakeNode) { n.rofs = true },
			incidents: [][]string{{"reprovision:ok"}, {"mark-unhealthy:ok", "power-off:ok"}},
			continued: [][]remediate.Step{nil, {remediate.Reprovision}},
			outcome:   "reprovision failed; marked Unhealthy; powered off"},
		{name: "management: reboot, reprovision, then Unhealthy", bmm: "rack1-mgmt2", trig: remediate.NodeUnknown,
			sicken:    func(n *fakeNode) { n.ready = model.ReadyUnknown },
			incidents: [][]string{{"reboot:ok"}, {"reprovision:ok"}, {"mark-unhealthy:ok"}},
			continued: [][]remediate.Step{nil, {remediate.Reboot}, {remediate.Reboot, remediate.Reprovision}},
			outcome:   "reboot and reprovision failed; marked Unhealthy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newFakeSite(t, "../examples/four-rack.yaml")
			for i, want := range tc.incidents {
				r.set(tc.bmm, tc.sicken)
				st := runRemediation(t, r, tc.bmm, tc.trig, RemediationWorkflow, KCPFailoverWorkflow)
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
			b := r.bmm(tc.bmm)
			require.True(t, b.MarkedUnhealthy())
			require.Equal(t, remediate.RoleOf(*b), b.Ladder.Role)
			// Marked: the monitor no longer admits it, so no fourth round.
			d := remediate.Admit(remediate.Due{BMM: tc.bmm, Role: remediate.RoleOf(*b), Trigger: tc.trig},
				remediate.Situation{Cluster: r.st.Cluster, MaxConcurrentCompute: 5})
			require.False(t, d.Start)
		})
	}
}

// A KCP that recovered by reboot and fails again within the window goes
// on to its give-up steps: marked Unhealthy and failed over.
func TestRemediationDampedKCP(t *testing.T) {
	r := newFakeSite(t, "../examples/four-rack.yaml")
	const kcp = "rack2-mgmt1"
	r.set(kcp, func(n *fakeNode) { n.ready = model.ReadyUnknown })
	st := runRemediation(t, r, kcp, remediate.NodeUnknown, RemediationWorkflow, KCPFailoverWorkflow)
	require.Equal(t, []string{"reboot:ok"}, ranSteps(st.Steps))
	require.Equal(t, &model.LadderMark{Role: model.RoleKCP, Steps: []string{"reboot"}, At: r.bmm(kcp).Ladder.At}, r.bmm(kcp).Ladder)

	r.set(kcp, func(n *fakeNode) { n.ready = model.ReadyUnknown })
	st = runRemediation(t, r, kcp, remediate.NodeUnknown, RemediationWorkflow, KCPFailoverWorkflow)
	require.Equal(t, []string{"mark-unhealthy:ok", "failover:ok"}, ranSteps(st.Steps))
	require.Equal(t, model.RoleManagement, r.role(kcp), "relabelled by the failover")
	requireKCPCount(t, r, 3)
}

// Past the damping window the ladder starts afresh; a Replace forgets it.
func TestRemediationLadderAfresh(t *testing.T) {
	r := newFakeSite(t, "../examples/four-rack.yaml")
	old := time.Now().Add(-25 * time.Hour)
	r.bmm("rack1-c1").Ladder = &model.LadderMark{Role: model.RoleCompute, Steps: []string{"reprovision"}, At: old}
	r.set("rack1-c1", func(n *fakeNode) { n.rofs = true })
	st := runRemediation(t, r, "rack1-c1", remediate.ReadOnlyRootFS, RemediationWorkflow, KCPFailoverWorkflow)
	require.Empty(t, st.Continued)
	require.Equal(t, []string{"reprovision:ok"}, ranSteps(st.Steps))

}

// The failed spare, and any BMM remediation gave up on, returns to service
// through a Replace, which forgets its ladder with its mark: its next
// remediation starts from the top.
func TestReplaceClearsLadder(t *testing.T) {
	r := newFakeSite(t, "../examples/four-rack.yaml")
	r.set("rack1-c1", func(n *fakeNode) { n.rofs = true })
	r.failing["rack1-c1"] = "the installer failed"
	runRemediation(t, r, "rack1-c1", remediate.ReadOnlyRootFS, RemediationWorkflow, KCPFailoverWorkflow)
	b := r.bmm("rack1-c1")
	require.True(t, b.MarkedUnhealthy())
	require.Equal(t, []string{"reprovision", "mark-unhealthy", "power-off"}, b.Ladder.Steps)

	delete(r.failing, "rack1-c1")
	r.st.BMCCredentials = map[string]model.CredentialRef{"default": {UsernameEnv: "U", PasswordEnv: "P"}}
	_, err := r.runAction(t, api.ActionInput{Cluster: "site-a", BMM: "rack1-c1", Action: api.ActionReplace,
		ReplaceParams: api.ReplaceParams{SerialNumber: "SN-NEW", BMCCredentials: "default", StoragePolicy: api.StoragePreserve}})
	require.NoError(t, err)
	b = r.bmm("rack1-c1")
	require.False(t, b.MarkedUnhealthy())
	require.Nil(t, b.Ladder, "a Replace clears the ladder with the mark")
	require.Nil(t, b.ProvisioningSince, "and its provisioning ended with the node back")
}
