package upgrade_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/lab/faults"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Each firmware fault fails its server during the upgrade, typed, within
// the `firmware` limit, naming the component and what was seen, and the
// rack's threshold counts it as a failed server: rack2 (three of its four
// servers on iLOs below the System ROM baseline, one update ending in
// Exception, one stuck Running, one that completes and leaves the old
// version) misses 80 % and the upgrade pauses naming them; none of them
// is reimaged on the old firmware.
func TestE2EUpgradeFirmwareFaultsFailTheServer(t *testing.T) {
	t.Parallel()
	faulty := map[string]faults.Kind{"rack2-c1": faults.FirmwareException, "rack2-c2": faults.FirmwareStuck, "rack2-c3": faults.FirmwareUnchanged}
	limit := 20 * time.Second
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		profiles := map[string]string{}
		for b := range faulty {
			profiles[b] = "ilo5"
		}
		inv.Lab, _ = json.Marshal(map[string]any{"bmcProfiles": profiles})
		fw := model.Duration(limit)
		inv.Timeouts = &model.TimeoutsSpec{Firmware: &fw}
		// rack2 whole (its "1 of 4" is the threshold proven); rack1 keeps the canary of two that goes first.
		e2e.KeepComputes(inv, 2, func(name string) bool { return strings.HasPrefix(name, "rack2-") })
	}})
	env.Inventory.Images.Firmware = map[string]firmware.Baseline{"4.2.0": {
		{Match: firmware.Match{Manufacturer: "HPE"}, Components: []firmware.Component{
			{Name: "System ROM", Kind: "bios", Inventory: "^System ROM$", Minimum: "U46 v2.90", Image: env.Lab.FirmwareURL("bios-2.90.fwpkg"),
				Apply: firmware.Apply{Method: firmware.MethodSimpleUpdate}},
		}},
	}}
	env.Register()
	for b, k := range faulty {
		require.NoError(t, env.Lab.SetFault(b, k, 0, false))
	}
	ctx := env.Context(10 * time.Minute)
	_, err := env.StartUpgrade(ctx, "4.2.0")
	require.NoError(t, err)
	st := env.AwaitPaused(ctx, 5*time.Minute, "rack2 misses its threshold")
	require.Contains(t, st.DetailedStatusMessage, "rack rack2 missed its threshold: 1 of 4")
	require.Contains(t, st.DetailedStatusMessage, "rack2-c1, rack2-c2, rack2-c3")

	says := map[string]string{
		"rack2-c1": "System ROM: the update task ended Exception",
		"rack2-c2": "System ROM: the update task is still Running",
		"rack2-c3": "System ROM still shows U46 v1.64 (08/11/2022)",
	}
	state := env.State()
	for b, want := range says {
		bm, _ := state.Cluster.BMM(b)
		require.Equal(t, model.BMMError, bm.DetailedStatus, b)
		require.Contains(t, bm.DetailedStatusMessage, "firmware of "+b+" failed: ", b)
		require.Contains(t, bm.DetailedStatusMessage, want, b)
		require.Equal(t, model.Cordoned, bm.CordonStatus, "%s: a failed server stays cordoned", b)
		require.Equal(t, "4.1.2", bm.RuntimeVersion, b)
		require.Equal(t, 1, env.Lab.Machine(b).BMC.State().UpdateRequests, "%s: one update request", b)
		require.Zero(t, env.Lab.ReimageCounts()[b], "%s: not reimaged on the old firmware", b)
	}
	// Within the limit: from each faulted server's cordon to its failure.
	cordoned := map[string]time.Time{}
	for _, e := range env.Events() {
		if _, ok := faulty[e.BMM]; ok && e.Kind == events.Cordon {
			cordoned[e.BMM] = e.Time
		}
	}
	for b := range faulty {
		require.False(t, cordoned[b].IsZero(), b)
		require.Less(t, time.Since(cordoned[b]), 2*limit+time.Minute, "%s failed within its firmware limit (and the drain before it)", b)
	}
	require.NoError(t, env.Update(ctx, api.UpgradeID(env.Cluster), api.UpdateCancel, nil))
}
