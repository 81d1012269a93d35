package upgrade_test

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Issue 21: with timeouts {reimage: 30s}, a compute whose install fails
// (the BMC answers, no OS ever comes back) fails within the site's limit,
// the upgrade ends by its threshold naming it, and starting the same
// target once the fault is cleared finishes it. The lab's good servers
// reimage in seconds, so 30s proves what a site's hours would.
func TestE2EFailedInstallEndsAtTheSiteLimit(t *testing.T) {
	t.Parallel()
	const bad = "rack2-c3"
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Worker: e2e.SiteWorker, Mutate: func(inv *model.Inventory) {
		inv.Timeouts = &model.TimeoutsSpec{Reimage: durationOf(30 * time.Second)}
		inv.Lab = []byte(`{"faults": [{"bmm": "` + bad + `", "kind": "reimage-fails"}]}`)
		// The subject is one server's limit and its re-run: a compute beside it in each rack proves that as four did.
		e2e.KeepComputes(inv, 1, func(name string) bool { return name == bad })
	}})
	require.Equal(t, 30*time.Second, env.State().Limits().Reimage.Std(), "the ledger holds the site's limit")
	ctx := env.Context(10 * time.Minute)
	lenient := model.UpdateStrategy{StrategyType: model.StrategyRack, ThresholdType: model.ThresholdPercentSuccess, ThresholdValue: 0, WaitTimeMinutes: new(int)}
	start := func() api.UpgradeStatus {
		var st api.UpgradeStatus
		require.NoError(t, env.StartUpgradeInput(ctx, api.UpgradeInput{TargetVersion: "4.2.0", UpdateStrategy: lenient}).Get(ctx, &st))
		return st
	}
	began := time.Now()
	st := start()
	require.Less(t, time.Since(began), 10*time.Minute)
	failed := failedServers(st)
	require.Len(t, failed, 1, "%+v", st.Racks)
	require.Equal(t, bad, failed[0].Name)
	require.Contains(t, failed[0].Error, "did not come back on 4.2.0 within 30s (timeouts.reimage)")
	require.NotEqual(t, "4.2.0", env.BMM(bad).RuntimeVersion)

	require.NoError(t, env.Lab.SetFault(bad, faults.ReimageFails, 0, true))
	st = start()
	require.Empty(t, failedServers(st), "%+v", st.Racks)
	require.Equal(t, "4.2.0", env.BMM(bad).RuntimeVersion, "the re-run finished the server")
}

func durationOf(d time.Duration) *model.Duration { v := model.Duration(d); return &v }

// failedServers are the servers the upgrade reports failed, in every unit.
func failedServers(st api.UpgradeStatus) []struct{ Name, Error string } {
	var out []struct{ Name, Error string }
	for _, u := range st.Units() {
		for _, s := range u.Servers {
			if s.State == api.StateFailed {
				out = append(out, struct{ Name, Error string }{s.Name, s.Error})
			}
		}
	}
	return out
}
