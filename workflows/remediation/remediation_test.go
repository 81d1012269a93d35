package remediation

import (
	"fmt"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
)

func ranSteps(recs []api.StepRecord) []string {
	var out []string
	for _, s := range recs {
		v := string(s.Step) + ":"
		if s.OK {
			v += "ok"
		} else {
			v += "failed"
		}
		out = append(out, v)
	}
	return out
}

func TestRemediationCompute(t *testing.T) {
	t.Run("reprovision recovers", func(t *testing.T) {
		r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
		r.Set("rack1-c1", func(n *wftest.FakeNode) { n.Rofs = true })
		st := wftest.RunRemediation(t, r, "rack1-c1", remediate.ReadOnlyRootFS, RemediationWorkflow, KCPFailoverWorkflow)
		require.Equal(t, []string{"reprovision:ok"}, ranSteps(st.Steps))
		require.True(t, st.Recovered)
		require.Equal(t, "recovered by reprovision", st.Outcome)
		require.Equal(t, []string{"reimage rack1-c1 4.1.2"}, r.Log)
		b := r.Bmm("rack1-c1")
		require.Equal(t, model.BMMProvisioned, b.DetailedStatus)
		require.Empty(t, b.DetailedStatusMessage)
		require.Empty(t, r.St.Leases)
	})
	t.Run("reprovision fails: Unhealthy, removed, powered off", func(t *testing.T) {
		r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
		r.Set("rack1-c1", func(n *wftest.FakeNode) { n.Rofs = true })
		r.Failing["rack1-c1"] = "the installer failed"
		st := wftest.RunRemediation(t, r, "rack1-c1", remediate.ReadOnlyRootFS, RemediationWorkflow, KCPFailoverWorkflow)
		require.Equal(t, []string{"reprovision:failed", "mark-unhealthy:ok", "power-off:ok"}, ranSteps(st.Steps))
		require.False(t, st.Recovered)
		require.Contains(t, st.Outcome, "reprovision failed; marked Unhealthy; powered off")
		require.Equal(t, []string{"reimage rack1-c1 4.1.2", "unhealthy rack1-c1", "drain rack1-c1", "delete-node rack1-c1", "power-off rack1-c1"}, r.Log)
		b := r.Bmm("rack1-c1")
		require.Equal(t, model.UnhealthyMessage, b.DetailedStatusMessage)
		require.Equal(t, model.PowerOff, b.PowerState)
		require.False(t, r.Nodes["rack1-c1"].Exists)
		require.Empty(t, r.St.Leases)
	})
	// The drain kept the last Ready rackroll worker (the drain's own rule,
	// internal/workerguard): the node is neither deleted nor powered off,
	// and the outcome names the pod and the node.
	t.Run("the last worker runs there: marked, not removed, not powered off", func(t *testing.T) {
		r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
		r.Set("rack1-c1", func(n *wftest.FakeNode) { n.Rofs = true })
		r.Failing["rack1-c1"] = "the installer failed"
		r.LastWorker = map[string]string{"rack1-c1": "rackroll/rackroll-worker-a"}
		st := wftest.RunRemediation(t, r, "rack1-c1", remediate.ReadOnlyRootFS, RemediationWorkflow, KCPFailoverWorkflow)
		require.Equal(t, []string{"reprovision:failed", "mark-unhealthy:failed", "power-off:failed"}, ranSteps(st.Steps))
		require.Equal(t, []string{"reimage rack1-c1 4.1.2", "unhealthy rack1-c1", "drain rack1-c1"}, r.Log)
		for _, want := range []string{"node not removed: drain of node rack1-c1 refused: pod rackroll/rackroll-worker-a on node rack1-c1 is the last Ready rackroll worker",
			"power-off failed: not powered off: drain of node rack1-c1 refused"} {
			require.Contains(t, st.Outcome, want)
		}
		b := r.Bmm("rack1-c1")
		require.True(t, b.MarkedUnhealthy(), "marked all the same")
		require.Equal(t, model.PowerOn, b.PowerState)
		require.True(t, r.Nodes["rack1-c1"].Exists)
		require.Empty(t, r.St.Leases)
	})
}

// The monitor saw a provisioning outlive its threshold, but by the time the
// remediation reads the ledger it has finished: nothing is reprovisioned.
func TestRemediationProvisioningFinishedMeanwhile(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	st := wftest.RunRemediation(t, r, "rack1-c1", remediate.ProvisioningTimeout, RemediationWorkflow, KCPFailoverWorkflow)
	require.Contains(t, st.Refused, "provisioning finished before the remediation started")
	require.Empty(t, st.Steps)
	require.Empty(t, r.Log, "no reimage, no reboot")
	require.Empty(t, r.St.Leases)

	// Still provisioning: the ladder runs.
	r = wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Bmm("rack1-c1").DetailedStatus = model.BMMProvisioning
	st = wftest.RunRemediation(t, r, "rack1-c1", remediate.ProvisioningTimeout, RemediationWorkflow, KCPFailoverWorkflow)
	require.Empty(t, st.Refused)
	require.Equal(t, []string{"reprovision:ok"}, ranSteps(st.Steps))
}

// A management server stuck in Provisioning that a reboot brings back is
// recorded Provisioned: otherwise the trigger would still hold and the
// monitor would reboot it again every round.
func TestRemediationRebootEndsProvisioning(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Bmm("rack1-mgmt2").DetailedStatus = model.BMMProvisioning
	st := wftest.RunRemediation(t, r, "rack1-mgmt2", remediate.ProvisioningTimeout, RemediationWorkflow, KCPFailoverWorkflow)
	require.Equal(t, []string{"reboot:ok"}, ranSteps(st.Steps))
	require.True(t, st.Recovered)
	require.Equal(t, model.BMMProvisioned, r.Bmm("rack1-mgmt2").DetailedStatus)
}

func TestRemediationManagement(t *testing.T) {
	const m = "rack1-mgmt2"
	for _, tc := range []struct {
		name         string
		rebootFails  bool
		reimageFails bool
		sticky       bool
		steps        []string
		recovered    bool
		outcome      string
		log          []string
	}{
		{name: "reboot recovers", steps: []string{"reboot:ok"}, recovered: true, outcome: "recovered by reboot",
			log: []string{"restart " + m}},
		{name: "reboot fails, reprovision recovers", rebootFails: true, steps: []string{"reboot:failed", "reprovision:ok"}, recovered: true,
			outcome: "recovered by reprovision", log: []string{"restart " + m, "reimage " + m + " 4.1.2"}},
		{name: "both fail: Unhealthy", rebootFails: true, reimageFails: true,
			steps: []string{"reboot:failed", "reprovision:failed", "mark-unhealthy:ok"}, outcome: "reboot and reprovision failed; marked Unhealthy",
			log: []string{"restart " + m, "reimage " + m + " 4.1.2", "unhealthy " + m, "drain " + m, "delete-node " + m}},
		{name: "Ready but still read-only is no recovery", sticky: true,
			steps: []string{"reboot:failed", "reprovision:failed", "mark-unhealthy:ok"}, outcome: "reboot and reprovision failed; marked Unhealthy",
			log: []string{"restart " + m, "reimage " + m + " 4.1.2", "unhealthy " + m, "drain " + m, "delete-node " + m}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
			r.Set(m, func(n *wftest.FakeNode) { n.Ready = model.ReadyUnknown; n.Rofs = tc.sticky })
			r.RebootFails[m], r.Sticky[m] = tc.rebootFails, tc.sticky
			if tc.reimageFails {
				r.Failing[m] = "the installer failed"
			}
			st := wftest.RunRemediation(t, r, m, remediate.NodeUnknown, RemediationWorkflow, KCPFailoverWorkflow)
			require.Equal(t, model.RoleManagement, st.Role)
			require.Equal(t, tc.steps, ranSteps(st.Steps))
			require.Equal(t, tc.recovered, st.Recovered)
			require.Contains(t, st.Outcome, tc.outcome)
			require.Equal(t, tc.log, r.Log)
			require.Equal(t, !tc.recovered, r.Bmm(m).DetailedStatusMessage == model.UnhealthyMessage)
			require.Empty(t, r.St.Leases)
		})
	}
}

func TestRemediationKCPRebootRecovers(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Set("rack2-mgmt1", func(n *wftest.FakeNode) { n.Ready = model.ReadyUnknown })
	st := wftest.RunRemediation(t, r, "rack2-mgmt1", remediate.NodeUnknown, RemediationWorkflow, KCPFailoverWorkflow)
	require.Equal(t, []string{"reboot:ok"}, ranSteps(st.Steps))
	require.True(t, st.Recovered)
	require.Equal(t, model.RoleKCP, r.Role("rack2-mgmt1"))
	require.Equal(t, []string{"restart rack2-mgmt1"}, r.Log)
}

// A KCP whose reboot fails is marked Unhealthy and failed over: the spare
// is a KCP before the failed server stops being one, and the failed server,
// provisioned again as management, serves again.
func TestRemediationKCPRebootFailsFailsOver(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	r.Set("rack2-mgmt1", func(n *wftest.FakeNode) { n.Ready = model.ReadyUnknown })
	r.RebootFails["rack2-mgmt1"] = true
	st := wftest.RunRemediation(t, r, "rack2-mgmt1", remediate.NodeUnknown, RemediationWorkflow, KCPFailoverWorkflow)
	require.Equal(t, []string{"reboot:failed", "mark-unhealthy:ok", "failover:ok"}, ranSteps(st.Steps))
	require.Contains(t, st.Outcome, "reboot failed; marked Unhealthy; failed over to the spare rack")
	require.Equal(t, model.RoleKCP, r.Role("rack4-mgmt1"), "the spare is an active KCP")
	require.Equal(t, model.RoleManagement, r.Role("rack2-mgmt1"))
	require.Equal(t, "restart rack2-mgmt1", r.Log[0])
	require.Equal(t, "unhealthy rack2-mgmt1", r.Log[1])
	require.Equal(t, "role rack4-mgmt1 kcp", r.Log[2], "the spare is promoted first")
	require.NotContains(t, r.Log, "delete-node rack2-mgmt1", "a KCP's node stays until the spare has replaced it")
	require.Empty(t, r.St.Leases)
	requireKCPCount(t, r, 3)
}

// requireKCPCount replays the role changes of r.log from the placement
// and checks the active KCP count never drops below want.
func requireKCPCount(t *testing.T, r *wftest.FakeSite, want int) {
	t.Helper()
	f := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	roles := map[string]model.Role{}
	n := 0
	for _, b := range f.St.Cluster.BMMs {
		roles[b.Name] = b.Roles[0]
		if b.Roles[0] == model.RoleKCP {
			n++
		}
	}
	for _, e := range r.Log {
		var bmm, role string
		if _, err := fmtSscanRole(e, &bmm, &role); err != nil {
			continue
		}
		if roles[bmm] == model.RoleKCP {
			n--
		}
		roles[bmm] = model.Role(role)
		if roles[bmm] == model.RoleKCP {
			n++
		}
		require.GreaterOrEqual(t, n, want, "active KCPs after %q", e)
	}
}

func TestRemediationRefusals(t *testing.T) {
	t.Run("leased by someone else", func(t *testing.T) {
		r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
		r.St.Leases = []lease.Lease{{BMM: "rack1-c1", Holder: "action:site-a:rack1-c1:1", Operation: "reimage", Disruptive: true, Since: time.Unix(0, 0)}}
		st := wftest.RunRemediation(t, r, "rack1-c1", remediate.ReadOnlyRootFS, RemediationWorkflow, KCPFailoverWorkflow)
		require.Contains(t, st.Refused, "bmm rack1-c1 is busy: action:site-a:rack1-c1:1 (reimage)")
		require.Contains(t, st.Outcome, "not started")
		require.Empty(t, st.Steps)
		require.Empty(t, r.Log)
	})
	t.Run("already Unhealthy", func(t *testing.T) {
		r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
		r.Bmm("rack1-c1").DetailedStatusMessage = model.UnhealthyMessage
		st := wftest.RunRemediation(t, r, "rack1-c1", remediate.ReadOnlyRootFS, RemediationWorkflow, KCPFailoverWorkflow)
		require.Contains(t, st.Refused, "already marked Unhealthy")
		require.Empty(t, r.Log)
	})
}

// fmtSscanRole parses a "role <bmm> <role>" log line.
func fmtSscanRole(line string, bmm, role *string) (int, error) {
	var kind string
	n, err := fmt.Sscan(line, &kind, bmm, role)
	if err == nil && kind != "role" {
		return n, fmt.Errorf("not a role change")
	}
	return n, err
}
