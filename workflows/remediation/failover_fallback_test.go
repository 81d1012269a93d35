package remediation

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
)

// Issue 27: a spare that cannot be provisioned during a failover is not
// marked for one failed attempt. The next healthy management server by
// the placement rules (here rack4's, the other rack without a KCP)
// becomes the KCP, and the spare goes down the management ladder: a
// reboot, a reprovision, then — both failing — the mark.
func TestFailoverFallsBackWhenTheSpareCannotBeProvisioned(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	const spare, standIn = "rack4-mgmt1", "rack4-mgmt2"
	r.Bmm(spare).DetailedStatus = model.BMMAvailable
	r.Failing[spare] = "the installer failed"
	r.RebootFails[spare] = true
	st := runFailover(t, r, "rack2-mgmt1")
	require.Empty(t, st.Error)
	require.True(t, st.Promoted)
	require.Equal(t, standIn, st.Plan.Spare, "the plan names the server promoted")
	require.Equal(t, model.RoleKCP, r.Role(standIn))
	require.Equal(t, model.RoleKCPSpare, r.Role(st.NewSpare))
	require.NotEqual(t, standIn, st.NewSpare)
	require.Equal(t, model.RoleManagement, r.Role("rack2-mgmt1"))
	require.False(t, r.Bmm("rack2-mgmt1").MarkedUnhealthy(), "the failed KCP serves as management again")

	b := r.Bmm(spare)
	require.Equal(t, model.RoleManagement, r.Role(spare))
	require.True(t, b.MarkedUnhealthy(), "the management ladder gave up on it")
	require.Equal(t, []string{"reboot", "reprovision", "mark-unhealthy"}, b.Ladder.Steps)
	require.Contains(t, b.Unhealthy.Reason, "management remediation gave up")
	require.Len(t, st.FallenOutcomes, 1)
	require.False(t, st.FallenOutcomes[0].Recovered)
	require.Empty(t, r.St.Leases)
	kcps := 0
	for _, x := range r.St.Cluster.BMMs {
		if x.HasRole(model.RoleKCP) && !x.MarkedUnhealthy() {
			kcps++
		}
	}
	require.Equal(t, 3, kcps, "the control plane is whole")
}

// One failed attempt is transient: the ladder's reboot brings the spare
// back, and it serves as management, unmarked.
func TestFailoverSpareThatFailsOnceIsNotMarked(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("two-rack.yaml"))
	const spare = "rack2-mgmt1"
	r.Bmm(spare).DetailedStatus = model.BMMAvailable
	r.Failing[spare] = "a passing fault"
	r.OnStep = func(activity, who string) error {
		if activity == "Restart" && who == spare {
			delete(r.Failing, spare)
		}
		return nil
	}
	st := runFailover(t, r, "rack1-mgmt1")
	require.Empty(t, st.Error)
	require.True(t, st.Promoted)
	require.Equal(t, model.RoleKCP, r.Role("rack2-mgmt2"), "the other rack's management server")
	require.Equal(t, model.RoleKCPSpare, r.Role("rack1-mgmt2"))
	require.Equal(t, model.RoleManagement, r.Role(spare))
	require.False(t, r.Bmm(spare).MarkedUnhealthy())
	require.Len(t, st.FallenOutcomes, 1)
	require.True(t, st.FallenOutcomes[0].Recovered, st.FallenOutcomes[0].Outcome)
}

// No server can take the failed KCP's place: the site stays a KCP short,
// the cluster Degraded, the reason naming each candidate and why.
func TestFailoverWithNoStandInLeavesTheSiteDegraded(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("two-rack.yaml"))
	const spare = "rack2-mgmt1"
	r.Bmm(spare).DetailedStatus = model.BMMAvailable
	r.Failing[spare] = "the installer failed"
	r.Bmm("rack1-mgmt2").Unhealthy = &model.UnhealthyMark{Reason: "gave up", By: "remediate:x"}
	r.Bmm("rack2-mgmt2").ReadyState = model.ReadyUnknown
	st := runFailover(t, r, "rack1-mgmt1")
	require.False(t, st.Promoted)
	require.Contains(t, st.Error, "control plane short of a KCP")
	for _, why := range []string{"rack1-mgmt2: marked Unhealthy", "rack2-mgmt1: its provisioning failed", "rack2-mgmt2: its node is not Ready (Unknown)"} {
		require.Contains(t, st.Error, why)
	}
	require.Equal(t, model.ClusterDegraded, r.St.Cluster.DetailedStatus)
	require.Contains(t, r.St.Cluster.DetailedStatusMessage, "rack2-mgmt2: its node is not Ready (Unknown)")
	require.True(t, r.Bmm("rack1-mgmt1").MarkedUnhealthy())
	require.Equal(t, model.RoleKCP, r.Role("rack1-mgmt1"))
	require.False(t, r.Bmm(spare).MarkedUnhealthy(), "one failed attempt is no mark")
	require.Empty(t, r.St.Leases)
}

// oneRackWithMgmt4 is the one-rack example with a fourth management
// server: the site keeps no spare, but a healthy server could stand in.
func oneRackWithMgmt4(t *testing.T) *wftest.FakeSite {
	raw, err := os.ReadFile(wftest.Example("one-rack.yaml"))
	require.NoError(t, err)
	mgmt4 := `      - name: rack1-mgmt4
        role: management
        bmc: {address: "https://10.0.1.14", credentials: default}
        bootMACAddress: "52:54:00:01:00:04"
        serialNumber: "SN-R1M04"
      - name: rack1-c1
`
	inv := strings.Replace(string(raw), "      - name: rack1-c1\n", mgmt4, 1)
	path := filepath.Join(t.TempDir(), "one-rack-mgmt4.yaml")
	require.NoError(t, os.WriteFile(path, []byte(inv), 0o600))
	return wftest.NewFakeSite(t, path)
}

// Issue 27 on one rack: failover never settles for fewer active KCPs than
// the healthy servers allow. A failed KCP is replaced by the healthy
// management server; nobody becomes a spare (the table keeps none).
func TestFailoverOnOneRackPromotesAManagementServer(t *testing.T) {
	r := oneRackWithMgmt4(t)
	require.Equal(t, model.RoleManagement, r.Role("rack1-mgmt4"))
	st := runFailover(t, r, "rack1-mgmt2")
	require.Empty(t, st.Error)
	require.True(t, st.Promoted)
	require.Equal(t, "rack1-mgmt4", st.Plan.Spare, "the stand-in")
	require.Empty(t, st.NewSpare, "a one-rack site keeps no spare")
	require.Equal(t, model.RoleKCP, r.Role("rack1-mgmt4"))
	require.Equal(t, model.RoleManagement, r.Role("rack1-mgmt2"))
	active, spares := 0, 0
	for _, b := range r.St.Cluster.BMMs {
		switch {
		case b.HasRole(model.RoleKCP) && !b.MarkedUnhealthy():
			active++
		case b.HasRole(model.RoleKCPSpare):
			spares++
		}
	}
	require.Equal(t, 3, active, "the control plane is whole")
	require.Zero(t, spares)
	require.Empty(t, r.St.Leases)
}

// With no healthy management server to stand in, the failed KCP is taken
// out and the control plane runs one short, saying why the fourth server
// could not serve.
func TestFailoverOnOneRackWithoutAStandInRunsShort(t *testing.T) {
	r := oneRackWithMgmt4(t)
	r.Bmm("rack1-mgmt4").ReadyState = model.ReadyUnknown
	env := r.NewEnv()
	r.Bmm("rack1-mgmt2").DetailedStatusMessage = model.UnhealthyMessage
	env.ExecuteWorkflow(KCPFailoverWorkflow, api.FailoverInput{Cluster: r.St.Cluster.Name, Failed: "rack1-mgmt2"})
	require.NoError(t, env.GetWorkflowError())
	var st struct{ Error string }
	require.NoError(t, env.GetWorkflowResult(&st))
	for _, w := range []string{"rack1-mgmt4: its node is not Ready (Unknown)", "runs one KCP short"} {
		require.Contains(t, st.Error, w)
	}
	require.Equal(t, model.RoleKCP, r.Role("rack1-mgmt2"), "the failed KCP keeps its role until replaced")
	require.Equal(t, model.RoleManagement, r.Role("rack1-mgmt4"))
}

// A failover cut while the fallen spare is on its management ladder leaves
// the control plane whole and the spare unmarked, management, its
// provisioning clock running: a re-run of the failover has nothing left to
// do, and the health monitor's provisioning-timeout trigger takes the
// spare from the top of the ladder (docs/control-plane.md). Converged by
// the monitor, not by the failover.
func TestFailoverCutOnTheFallenLadderLeavesItToTheMonitor(t *testing.T) {
	r := wftest.NewFakeSite(t, wftest.Example("four-rack.yaml"))
	const spare, failed = "rack4-mgmt1", "rack2-mgmt1"
	r.Bmm(spare).DetailedStatus = model.BMMAvailable
	r.Failing[spare] = "the installer failed"
	r.Delay["Restart"] = 15 * time.Minute // the fallen spare's ladder: its reboot
	env := r.NewEnv()
	r.Bmm(failed).DetailedStatusMessage = model.UnhealthyMessage
	var onLadder atomic.Bool
	env.SetOnActivityStartedListener(func(info *activity.Info, ctx context.Context, args converter.EncodedValues) {
		r.ActivityStarted(info, ctx, args)
		if info.ActivityType.Name == "Restart" { // only the fallen spare restarts here
			onLadder.Store(true)
		}
	})
	for m := 1; m <= 600; m++ { // each simulated minute: cut once the ladder runs
		env.RegisterDelayedCallback(func() {
			if onLadder.Load() {
				onLadder.Store(false)
				env.CancelWorkflow()
			}
		}, time.Duration(m)*time.Minute)
	}
	env.ExecuteWorkflow(KCPFailoverWorkflow, api.FailoverInput{Cluster: r.St.Cluster.Name, Failed: failed})
	var st api.FailoverStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.True(t, st.Promoted, st.Error)
	require.Contains(t, st.Error, "cancelled")
	require.Equal(t, []api.FallenOutcome{{BMM: spare, Outcome: "cancelled during reboot"}}, st.FallenOutcomes)

	b := r.Bmm(spare)
	require.Equal(t, model.RoleManagement, r.Role(spare))
	require.False(t, b.MarkedUnhealthy(), "one failed attempt is no mark")
	require.NotNil(t, b.ProvisioningSince, "its provisioning clock runs")
	kcps := 0
	for _, x := range r.St.Cluster.BMMs {
		if x.HasRole(model.RoleKCP) && !x.MarkedUnhealthy() {
			kcps++
		}
	}
	require.Equal(t, 3, kcps, "the control plane is whole")

	// The failover run again finds nothing to do for the failed server.
	again := r.NewEnv()
	again.ExecuteWorkflow(KCPFailoverWorkflow, api.FailoverInput{Cluster: r.St.Cluster.Name, Failed: failed})
	var st2 api.FailoverStatus
	require.NoError(t, again.GetWorkflowResult(&st2))
	require.False(t, st2.Promoted, "no second promotion")

	// The monitor's view of the spare: its node never came back, so the
	// provisioning-timeout trigger is due once the timeout has passed.
	ns := make([]kube.NodeStatus, len(r.St.Cluster.BMMs))
	for i, x := range r.St.Cluster.BMMs {
		ns[i] = kube.NodeStatus{Node: x.NodeName, Exists: x.Name != spare, Ready: model.ReadyTrue}
	}
	cfg := r.St.Remediation
	now := b.ProvisioningSince.Add(time.Duration(cfg.ProvisioningTimeout))
	_, due := remediate.Observe(nil, observations(r.St.Cluster, ns), now, cfg)
	require.Contains(t, due, remediate.Due{BMM: spare, Role: model.RoleManagement, Trigger: remediate.ProvisioningTimeout,
		Since: *b.ProvisioningSince, Held: time.Duration(cfg.ProvisioningTimeout)})
}
