package workflows

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/remediate"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

// A limit bounds its step, retries included: a BMC (or API) that never
// answers usefully ends the step within the site's limit, and the failure
// names the step, the BMM, the limit and where it is set. The activities
// hang far past every limit on the workflow clock (time-skipping).
const hung = 100 * time.Hour

// slack is what a step may take past its limit in these tests: the
// activities after it (ledger records, the eject) answer at once.
const slack = 5 * time.Second

func limitOf(d time.Duration) *model.Duration { v := model.Duration(d); return &v }

func TestUpgradeStepsEndWithinTheSiteLimits(t *testing.T) {
	for _, tc := range []struct {
		name, activity string
		limits         model.TimeoutsSpec
		limit          time.Duration
		want           string
	}{
		{"reimage", "Reimage", model.TimeoutsSpec{Reimage: limitOf(90 * time.Second)}, 90 * time.Second,
			"reimage of rack1-c1 failed: the BMC of rack1-c1 did not start the install of 4.2.0 within 1m30s (timeouts.reimage)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, res, took := upgradeOne(t, func(f *fakeSite, _ *testsuite.TestWorkflowEnvironment) {
				f.st.Timeouts = tc.limits.Resolve()
				f.delay[tc.activity] = hung
			})
			require.False(t, res.Succeeded)
			require.Contains(t, res.Error, tc.want)
			require.LessOrEqual(t, took, tc.limit+slack)
		})
	}
}

// A drain or VM shutdown that never answers ends at its limit and the
// server goes on, as one that reported its time out does.
func TestUpgradeDrainAndVMShutdownProceedAtTheSiteLimits(t *testing.T) {
	for _, tc := range []struct {
		name, activity string
		limits         model.TimeoutsSpec
		limit          time.Duration
	}{
		{"drain", "Drain", model.TimeoutsSpec{Drain: limitOf(40 * time.Second)}, 40 * time.Second},
		{"VM shutdown", "ShutdownVMs", model.TimeoutsSpec{VMShutdown: limitOf(30 * time.Second)}, 30 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, res, took := upgradeOne(t, func(f *fakeSite, _ *testsuite.TestWorkflowEnvironment) {
				f.st.Timeouts = tc.limits.Resolve()
				f.delay[tc.activity] = hung
			})
			require.True(t, res.Succeeded, res.Error)
			require.True(t, res.DrainTimedOut || res.VMsTimedOut, "%+v", res)
			require.Contains(t, f.reimages, compute, "the server went on to its reimage")
			require.LessOrEqual(t, took, tc.limit+slack)
		})
	}
}

// The node never comes back: the in-band wait ends at what is left of the
// reimage limit, not at the operator default.
func TestUpgradeReimageLimitIsTheSites(t *testing.T) {
	_, res, took := upgradeOne(t, func(f *fakeSite, _ *testsuite.TestWorkflowEnvironment) {
		f.st.Timeouts = (&model.TimeoutsSpec{Reimage: limitOf(90 * time.Second)}).Resolve()
		f.lost[compute] = true
	})
	require.False(t, res.Succeeded)
	require.Contains(t, res.Error, "did not come back on 4.2.0 within 1m30s (timeouts.reimage)")
	require.LessOrEqual(t, took, 90*time.Second+slack)
}

func TestActionsEndWithinTheSiteLimits(t *testing.T) {
	for _, tc := range []struct {
		action, activity string
		limits           model.TimeoutsSpec
		limit            time.Duration
	}{
		{api.ActionRestart, "Restart", model.TimeoutsSpec{Restart: limitOf(45 * time.Second)}, 45 * time.Second},
		{api.ActionStart, "PowerOn", model.TimeoutsSpec{Start: limitOf(35 * time.Second)}, 35 * time.Second},
		{api.ActionPowerOff, "PowerOff", model.TimeoutsSpec{PowerOff: limitOf(25 * time.Second)}, 25 * time.Second},
		{api.ActionReimage, "Reimage", model.TimeoutsSpec{Reimage: limitOf(2 * time.Minute)}, 2 * time.Minute},
		{api.ActionReplace, "Reimage", model.TimeoutsSpec{Replace: limitOf(3 * time.Minute)}, 3 * time.Minute},
	} {
		t.Run(tc.action, func(t *testing.T) {
			s := newActionSite(t)
			s.st.Timeouts = tc.limits.Resolve()
			s.delay[tc.activity] = hung
			in := act(tc.action, compute)
			if tc.action == api.ActionReplace {
				in.ReplaceParams = api.ReplaceParams{SafeguardMode: api.SafeguardNone}
			}
			env := s.env(t, api.ActionID("site-a", compute, 1))
			start := env.Now()
			env.ExecuteWorkflow(BMMActionWorkflow, in)
			err := env.GetWorkflowError()
			require.Error(t, err)
			require.LessOrEqual(t, env.Now().Sub(start), tc.limit+slack)
			require.Contains(t, err.Error(), tc.action+" of rack1-c1")
			require.Contains(t, err.Error(), "(timeouts."+map[string]string{api.ActionStart: "start", api.ActionPowerOff: "powerOff"}[tc.action])
			require.Empty(t, s.leases())
		})
	}
}

// Reference rule: a KCP whose reboot does not bring it back is failed
// over. A BMC that accepts the reset and never powers the machine on ends
// the reboot at rebootTimeout, so the spare is promoted in time.
func TestRemediationRebootEndsAtRebootTimeout(t *testing.T) {
	r := newFakeSite(t, "../examples/four-rack.yaml")
	r.st.Remediation.RebootTimeout = model.Duration(20 * time.Second)
	r.set("rack2-mgmt1", func(n *fakeNode) { n.ready = model.ReadyUnknown })
	r.delay["Restart"] = hung
	st := runRemediation(t, r, "rack2-mgmt1", remediate.NodeUnknown, RemediationWorkflow, KCPFailoverWorkflow)
	require.Equal(t, []string{"reboot:failed", "mark-unhealthy:ok", "failover:ok"}, ranSteps(st.Steps))
	reboot := st.Steps[0]
	require.Contains(t, reboot.Detail, "restart of rack2-mgmt1 did not bring its node back within 20s (remediation.rebootTimeout)")
	require.LessOrEqual(t, reboot.FinishedAt.Sub(reboot.StartedAt), 20*time.Second+slack)
	require.Equal(t, model.RoleKCP, r.role("rack4-mgmt1"), "the spare is an active KCP")
}

// The drain and VM-shutdown limits are passed on, and a drain that runs
// out of time does not stop the server's upgrade (docs/behaviour.md#time-limits).
func TestDrainAndVMShutdownLimitsThenProceed(t *testing.T) {
	f, env := siteEnv(t, "../examples/four-rack.yaml")
	f.slowTenants = true
	var res api.ServerResult
	in := api.ServerInput{Cluster: "site-a", BMM: "rack1-c1", TargetVersion: "4.2.0", ImageURL: "http://images/rackroll-4.2.0.iso"}
	env.ExecuteWorkflow(ServerUpgradeWorkflow, in)
	require.NoError(t, env.GetWorkflowError())
	require.NoError(t, env.GetWorkflowResult(&res))
	require.True(t, res.Succeeded, res.Error)
	require.True(t, res.DrainTimedOut && res.VMsTimedOut)
	require.Len(t, f.drains, 1)
	require.Equal(t, 20*time.Minute, f.drains[0].Timeout)
	require.Len(t, f.vmStops, 1)
	require.Equal(t, 10*time.Minute, f.vmStops[0].Timeout)
	require.Equal(t, []string{"rack1-c1"}, f.reimages)
}
