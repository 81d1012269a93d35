package upgrade_test

import (
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Issue 48's re-run, end to end: a site already at the target — its
// upgrade to 4.2.0 completed before the site declared 4.2.0's firmware
// baseline — with one compute server below that baseline is upgraded to
// 4.2.0 again. The run is for the firmware alone (the plan's
// firmwareOnly): that server alone is cordoned, drained, given its BIOS
// (one update request) and uncordoned, and not reimaged; the other
// servers are read and left alone (no cordon, no update, no reimage); the
// upgrade completes with the cluster Running at 4.2.0, and `starter lab
// check` finds nothing.
func TestE2EUpgradeRerunAtTargetAppliesFirmware(t *testing.T) {
	t.Parallel()
	const below = "rack1-c1"
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		// Every BMC the default iDRAC9 (BIOS 1.13.2), below's BIOS older.
		inv.Lab, _ = json.Marshal(map[string]any{"firmware": map[string]map[string]string{below: {"bios": "1.10.0"}}})
		e2e.KeepComputes(inv, 2, nil) // below and three computes beside it
	}})
	ctx := env.Context(15 * time.Minute)
	first := env.Upgrade(ctx, "4.2.0")
	requireAtTarget(t, env, first)
	require.Empty(t, env.State().UpgradeTarget, "the upgrade completed")
	require.Equal(t, "1.10.0", env.Lab.Machine(below).BMC.FirmwareVersions()["bios"], "no baseline yet: nothing applied")

	env.Inventory.Images.Firmware = map[string]firmware.Baseline{"4.2.0": {{Match: firmware.Match{Manufacturer: "Dell Inc."},
		Components: []firmware.Component{{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "1.13.2", Image: env.Lab.FirmwareURL("bios-1.13.2.exe"),
			Apply: firmware.Apply{Method: firmware.MethodSimpleUpdate, ApplyTime: firmware.ApplyOnReset}}}}}}
	env.Register()
	require.NotNil(t, env.State().Firmware["4.2.0"])

	seen := len(env.Events())
	reimages := maps.Clone(env.Lab.ReimageCounts())
	st := env.Upgrade(ctx, "4.2.0")
	env.RecordHistoriesAs("fwrerun", api.UpgradeID(env.Cluster), api.ServerUpgradeID(env.Cluster, below))
	require.NotNil(t, st.Plan)
	require.True(t, st.Plan.FirmwareOnly, "a run for the firmware alone")
	requireAtTarget(t, env, st) // Running at 4.2.0, everyone uncordoned; lab check: 0 violations
	require.Empty(t, env.State().UpgradeTarget, "the re-run completed")

	require.Equal(t, "1.13.2", env.Lab.Machine(below).BMC.FirmwareVersions()["bios"], "%s at the baseline", below)
	require.Equal(t, reimages, env.Lab.ReimageCounts(), "nothing reimaged: every OS is at the target")
	rerun := map[string][]string{} // each server's disruptions and firmware in the re-run
	for _, e := range env.Events()[seen:] {
		switch e.Kind {
		case events.Cordon, events.Uncordon, events.FirmwareUpdate, events.FirmwareDone, events.ReimageStart:
			rerun[e.BMM] = append(rerun[e.BMM], e.Kind)
		}
	}
	require.Equal(t, []string{events.Cordon, events.FirmwareUpdate, events.FirmwareDone, events.Uncordon}, rerun[below],
		"%s: one window: cordon (and drain), its BIOS, uncordon", below)
	for _, b := range env.State().Cluster.BMMs {
		requests := env.Lab.Machine(b.Name).BMC.State().UpdateRequests
		if b.Name == below {
			require.Equal(t, 1, requests, "%s: one update request", below)
			require.Equal(t, model.Uncordoned, b.CordonStatus)
			continue
		}
		require.Zero(t, requests, "%s: at the baseline, sent no update", b.Name)
		require.Empty(t, rerun[b.Name], "%s: not cordoned, drained nor updated by the re-run", b.Name)
	}
	states := map[string]string{}
	for _, u := range st.Units() {
		for _, s := range u.Servers {
			states[s.Name] = s.State
		}
	}
	require.Equal(t, api.StateSucceeded, states[below], "%s: its firmware applied", below)
	for _, name := range []string{"rack1-c2", "rack2-c1", "rack2-c2"} {
		require.Equal(t, api.StateSkipped, states[name], "%s: at the target and the baseline", name)
	}
}
