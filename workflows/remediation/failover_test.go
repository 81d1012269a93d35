package remediation

import (
	"testing"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

func runFailover(t *testing.T, r *wftest.FakeSite, failed string) api.FailoverStatus {
	t.Helper()
	env := r.NewEnv()
	r.Bmm(failed).DetailedStatusMessage = model.UnhealthyMessage
	env.ExecuteWorkflow(KCPFailoverWorkflow, api.FailoverInput{Cluster: r.St.Cluster.Name, Failed: failed})
	require.NoError(t, env.GetWorkflowError())
	var st api.FailoverStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.True(t, st.Finished)
	return st
}

// docs/behaviour.md#remediation: the spare becomes an active KCP, a healthy management
// server the new spare (leaving its group), the failed KCP a management
// server that is provisioned again and, once it serves, is no longer
// marked Unhealthy.
func TestFailoverRoleChanges(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	st := runFailover(t, r, "rack2-mgmt1")
	require.Empty(t, st.Error)
	require.NotNil(t, st.Plan)
	require.Equal(t, "rack4-mgmt1", st.Plan.Spare)
	require.True(t, st.Promoted)
	require.Equal(t, st.Plan.NewSpare, st.NewSpare)
	require.NotEmpty(t, st.NewSpare)
	require.True(t, st.FailedRecovered, st.FailedOutcome)

	require.Equal(t, model.RoleKCP, r.Role("rack4-mgmt1"))
	require.Equal(t, model.RoleKCPSpare, r.Role(st.NewSpare))
	require.Empty(t, r.Bmm(st.NewSpare).ManagementGroup, "the new spare leaves its management group")
	failed := r.Bmm("rack2-mgmt1")
	require.Equal(t, []model.Role{model.RoleManagement}, failed.Roles)
	require.Equal(t, st.Plan.FailedNewGroup, failed.ManagementGroup)
	require.NotEmpty(t, failed.ManagementGroup)
	require.Empty(t, failed.DetailedStatusMessage, "provisioned as management: the mark is cleared")
	require.Equal(t, model.BMMProvisioned, failed.DetailedStatus)
	require.Equal(t, []string{"role rack4-mgmt1 kcp", "role " + st.NewSpare + " kcp-spare", "role rack2-mgmt1 management", "reimage rack2-mgmt1 4.1.2"}, r.Log)
	require.Empty(t, r.St.Leases, "every failover lease released")
	requireKCPCount(t, r, 3)
}

// Provisioning the failed server as management fails: the management
// ladder takes over from the top (docs/behaviour.md#remediation) — a reboot, one
// reprovision — and when both fail the server stays Unhealthy and its node
// is removed. The ladder's position is recorded as a management ladder.
func TestFailoverFailedServerLadder(t *testing.T) {
	for _, tc := range []struct {
		name        string
		rebootFails bool
		steps       []string
		recovered   bool
	}{
		{"reboot and reprovision fail too: stays Unhealthy", true,
			[]string{"reprovision:failed", "reboot:failed", "reprovision:failed", "mark-unhealthy:ok"}, false},
		{"reboot recovers", false, []string{"reprovision:failed", "reboot:ok"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
			r.Set("rack2-mgmt1", func(n *wftest.FakeNode) { n.Ready = model.ReadyUnknown })
			r.Failing["rack2-mgmt1"] = "the installer failed"
			r.RebootFails["rack2-mgmt1"] = tc.rebootFails
			st := runFailover(t, r, "rack2-mgmt1")
			require.Empty(t, st.Error)
			require.True(t, st.Promoted)
			require.Equal(t, tc.steps, ranSteps(st.Steps))
			require.Equal(t, tc.recovered, st.FailedRecovered, st.FailedOutcome)
			b := r.Bmm("rack2-mgmt1")
			require.Equal(t, model.RoleManagement, b.Roles[0])
			require.Equal(t, !tc.recovered, b.DetailedStatusMessage == model.UnhealthyMessage)
			require.Equal(t, !tc.recovered, !r.Nodes["rack2-mgmt1"].Exists, "node removed only when given up")
			require.NotNil(t, b.Ladder)
			require.Equal(t, model.RoleManagement, b.Ladder.Role)
			ladder := []string{"reboot"}
			if !tc.recovered {
				ladder = []string{"reboot", "reprovision", "mark-unhealthy"}
			}
			require.Equal(t, ladder, b.Ladder.Steps)
			require.Empty(t, r.St.Leases)
			requireKCPCount(t, r, 3)
		})
	}
}

// The remediation that started the failover rebooted the KCP already, as a
// KCP: once relabelled management, it is a management server whose ladder
// has not run, so the management ladder reboots it (before the change it
// went straight to Unhealthy).
func TestFailoverRelabelledKCPRunsManagementLadder(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Set("rack2-mgmt1", func(n *wftest.FakeNode) { n.Ready = model.ReadyUnknown })
	r.Failing["rack2-mgmt1"] = "the installer failed"
	env := r.NewEnv()
	r.Bmm("rack2-mgmt1").DetailedStatusMessage = model.UnhealthyMessage
	env.ExecuteWorkflow(KCPFailoverWorkflow, api.FailoverInput{Cluster: r.St.Cluster.Name, Failed: "rack2-mgmt1", Rebooted: true})
	require.NoError(t, env.GetWorkflowError())
	var st api.FailoverStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.True(t, st.Promoted)
	require.True(t, st.FailedRecovered, "the management ladder's reboot brought it back: %s", st.FailedOutcome)
	require.Equal(t, []string{"reprovision:failed", "reboot:ok"}, ranSteps(st.Steps))
	require.Contains(t, r.Log, "restart rack2-mgmt1")
	b := r.Bmm("rack2-mgmt1")
	require.Empty(t, b.DetailedStatusMessage, "serving as management: no longer marked")
	require.Equal(t, model.BMMProvisioned, b.DetailedStatus)
	require.Equal(t, &model.LadderMark{Role: model.RoleManagement, Steps: []string{"reboot"}, At: b.Ladder.At}, b.Ladder)
	require.Empty(t, r.St.Leases)
	requireKCPCount(t, r, 3)
}

// A deprovisioned spare (as an upgrade leaves it) is provisioned to the
// cluster's runtime before it is promoted.
func TestFailoverProvisionsAnAvailableSpare(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Bmm("rack4-mgmt1").DetailedStatus = model.BMMAvailable
	r.Set("rack4-mgmt1", func(n *wftest.FakeNode) { n.Exists = false })
	st := runFailover(t, r, "rack2-mgmt1")
	require.True(t, st.Promoted)
	require.Equal(t, "reimage rack4-mgmt1 4.1.2", r.Log[0])
	require.Equal(t, "role rack4-mgmt1 kcp", r.Log[1])
	require.Equal(t, model.BMMProvisioned, r.Bmm("rack4-mgmt1").DetailedStatus)
}

// The spare itself failed: nothing to promote; a management server takes
// the spare slot and the failed spare becomes management.
func TestFailoverOfTheSpare(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	st := runFailover(t, r, "rack4-mgmt1")
	require.Empty(t, st.Error)
	require.False(t, st.Promoted)
	require.NotEmpty(t, st.NewSpare)
	require.Equal(t, model.RoleKCPSpare, r.Role(st.NewSpare))
	require.Equal(t, model.RoleManagement, r.Role("rack4-mgmt1"))
}

// A single rack keeps no spare: the KCP stays Unhealthy and keeps its
// role; its node is drained and deleted (with etcd: kcp_member_test.go).
func TestFailoverWithoutSpare(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("one-rack.yaml"))
	var kcp string
	for _, b := range r.St.Cluster.BMMs {
		if b.HasRole(model.RoleKCP) {
			kcp = b.Name
			break
		}
	}
	st := runFailover(t, r, kcp)
	require.Contains(t, st.Error, "keeps no spare")
	require.Contains(t, st.Error, "drained and deleted from Kubernetes: the control plane runs one KCP short")
	require.NotContains(t, st.Error, "etcd", "a site without an etcd section has no member to remove")
	require.Equal(t, []string{"drain " + kcp, "delete-node " + kcp}, r.Log, "no role changes")
	require.Equal(t, model.RoleKCP, r.Role(kcp))
	require.Empty(t, r.St.Leases)
}
