package upgrade_test

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/lab/events"
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
//
// The re-run also converges firmware (issue 36): rack1-c1 reached the
// target in the first run, before the site declared the target's
// baseline, with a BIOS below it. The re-run gives it the BIOS in a window
// of its own — one more cordon, one update request, the host reset the
// staged update needs — and does not reimage it again.
func TestE2EFailedInstallEndsAtTheSiteLimit(t *testing.T) {
	t.Parallel()
	const bad, old = "rack2-c3", "rack1-c1"
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Worker: e2e.SiteWorker, Mutate: func(inv *model.Inventory) {
		inv.Timeouts = &model.TimeoutsSpec{Reimage: durationOf(30 * time.Second)}
		inv.Lab = []byte(`{"faults": [{"bmm": "` + bad + `", "kind": "reimage-fails"}], "firmware": {"` + old + `": {"bios": "1.10.0"}}}`)
		// The subject is one server's limit and its re-run: a compute beside it in each rack proves that as four did.
		e2e.KeepComputes(inv, 1, func(name string) bool { return name == bad })
	}})
	require.Equal(t, 30*time.Second, env.State().Limits().Reimage.Std(), "the ledger holds the site's limit")
	ctx := env.Context(10 * time.Minute)
	start := func() api.UpgradeStatus {
		var st api.UpgradeStatus
		require.NoError(t, env.StartUpgradeInput(ctx, api.UpgradeInput{TargetVersion: "4.2.0", UpdateStrategy: lenientRack()}).Get(ctx, &st))
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

	require.Equal(t, "4.2.0", env.BMM(old).RuntimeVersion)
	reimages := env.Lab.ReimageCounts()[old]
	env.Inventory.Images.Firmware = map[string]firmware.Baseline{"4.2.0": {{Match: firmware.Match{Manufacturer: "Dell Inc."},
		Components: []firmware.Component{{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "1.13.2", Image: env.Lab.FirmwareURL("bios-1.13.2.exe"),
			Apply: firmware.Apply{Method: firmware.MethodSimpleUpdate, ApplyTime: firmware.ApplyOnReset}}}}}}
	env.Register()

	require.NoError(t, env.Lab.SetFault(bad, faults.ReimageFails, 0, true))
	st = start()
	require.Empty(t, failedServers(st), "%+v", st.Racks)
	require.Equal(t, "4.2.0", env.BMM(bad).RuntimeVersion, "the re-run finished the server")

	require.Equal(t, "1.13.2", env.Lab.Machine(old).BMC.FirmwareVersions()["bios"], "%s at the baseline", old)
	require.Equal(t, 1, env.Lab.Machine(old).BMC.State().UpdateRequests, "%s: one update request", old)
	require.Equal(t, reimages, env.Lab.ReimageCounts()[old], "%s: not reimaged again (its OS is at the target)", old)
	var after []string // old's events once the first run had reimaged it
	seen := 0
	for _, e := range env.Events() {
		if e.BMM != old {
			continue
		}
		if e.Kind == events.ReimageStart {
			seen++
		}
		if seen > 0 && (e.Kind == events.Cordon || e.Kind == events.FirmwareDone || e.Kind == events.Uncordon) {
			after = append(after, e.Kind)
		}
	}
	require.Equal(t, []string{events.Uncordon, events.Cordon, events.FirmwareDone, events.Uncordon}, after,
		"%s: after its reimage, one more window: cordon, the BIOS, uncordon", old)
	require.Equal(t, model.Uncordoned, env.BMM(old).CordonStatus)
	site, err := invariants.SiteFromInventory(env.Inventory)
	require.NoError(t, err)
	require.Empty(t, invariants.Check(env.Events(), invariants.WithUpgrade(site, st)), "starter lab check: violations after the re-run")
}

// lenientRack upgrades rack by rack with a threshold any failure passes
// and no wait between racks: for tests whose subject is one server's
// failure and the rest going on.
func lenientRack() model.UpdateStrategy {
	return model.UpdateStrategy{StrategyType: model.StrategyRack, ThresholdType: model.ThresholdPercentSuccess, ThresholdValue: 0, WaitTimeMinutes: new(int)}
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

// failedWith is the error the upgrade reports for server name, "" when it
// did not fail.
func failedWith(st api.UpgradeStatus, name string) string {
	for _, f := range failedServers(st) {
		if f.Name == name {
			return f.Error
		}
	}
	return ""
}
