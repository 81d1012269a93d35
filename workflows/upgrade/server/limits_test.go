package server

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/workflows/internal/wftest"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

func TestUpgradeStepsEndWithinTheSiteLimits(t *testing.T) {
	for _, tc := range []struct {
		name, activity string
		limits         model.TimeoutsSpec
		limit          time.Duration
		want           string
	}{
		{"reimage", "Reimage", model.TimeoutsSpec{Reimage: wftest.LimitOf(90 * time.Second)}, 90 * time.Second,
			"reimage of rack1-c1 failed: the BMC of rack1-c1 did not start the install of 4.2.0 within 1m30s (timeouts.reimage)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, res, took := upgradeOne(t, func(f *wftest.FakeSite, _ *testsuite.TestWorkflowEnvironment) {
				f.St.Timeouts = tc.limits.Resolve()
				f.Delay[tc.activity] = wftest.Hung
			})
			require.False(t, res.Succeeded)
			require.Contains(t, res.Error, tc.want)
			require.LessOrEqual(t, took, tc.limit+wftest.Slack)
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
		{"drain", "Drain", model.TimeoutsSpec{Drain: wftest.LimitOf(40 * time.Second)}, 40 * time.Second},
		{"VM shutdown", "ShutdownVMs", model.TimeoutsSpec{VMShutdown: wftest.LimitOf(30 * time.Second)}, 30 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, res, took := upgradeOne(t, func(f *wftest.FakeSite, _ *testsuite.TestWorkflowEnvironment) {
				f.St.Timeouts = tc.limits.Resolve()
				f.Delay[tc.activity] = wftest.Hung
			})
			require.True(t, res.Succeeded, res.Error)
			require.True(t, res.DrainTimedOut || res.VMsTimedOut, "%+v", res)
			require.Contains(t, f.Reimages, wftest.Compute, "the server went on to its reimage")
			require.LessOrEqual(t, took, tc.limit+wftest.Slack)
		})
	}
}

// The node never comes back: the in-band wait ends at what is left of the
// reimage limit, not at the operator default.
func TestUpgradeReimageLimitIsTheSites(t *testing.T) {
	_, res, took := upgradeOne(t, func(f *wftest.FakeSite, _ *testsuite.TestWorkflowEnvironment) {
		f.St.Timeouts = (&model.TimeoutsSpec{Reimage: wftest.LimitOf(90 * time.Second)}).Resolve()
		f.Lost[wftest.Compute] = true
	})
	require.False(t, res.Succeeded)
	require.Contains(t, res.Error, "did not come back on 4.2.0 within 1m30s (timeouts.reimage)")
	require.LessOrEqual(t, took, 90*time.Second+wftest.Slack)
}

// The drain and VM-shutdown limits are passed on, and a drain that runs
// out of time does not stop the server's upgrade (docs/behaviour.md#time-limits).
func TestDrainAndVMShutdownLimitsThenProceed(t *testing.T) {
	f, env := wftest.SiteEnv(t, wftest.Example("four-rack.yaml"))
	f.SlowTenants = true
	var res api.ServerResult
	in := api.ServerInput{Cluster: "site-a", BMM: "rack1-c1", TargetVersion: "4.2.0", ImageURL: "http://images/rackroll-4.2.0.iso"}
	env.ExecuteWorkflow(ServerUpgradeWorkflow, in)
	require.NoError(t, env.GetWorkflowError())
	require.NoError(t, env.GetWorkflowResult(&res))
	require.True(t, res.Succeeded, res.Error)
	require.True(t, res.DrainTimedOut && res.VMsTimedOut)
	require.Len(t, f.Drains, 1)
	require.Equal(t, 20*time.Minute, f.Drains[0].Timeout)
	require.Len(t, f.VMStops, 1)
	require.Equal(t, 10*time.Minute, f.VMStops[0].Timeout)
	require.Equal(t, []string{"rack1-c1"}, f.Reimages)
}
