package upgrade_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Issue 36's upgrade, end to end: a site with one server of each firmware
// shape below the target's baseline — an iDRAC staging its BIOS until the
// host resets, an iLO flashing its System ROM and resetting itself for its
// own firmware, a Supermicro taking a pushed BIOS with the host off — is
// upgraded: each of them ends at the target runtime and at the baseline,
// the firmware applied between its cordon and its reimage, each server
// cordoned once (one disruption), the servers at the baseline sent no
// update, and `starter lab check` finds nothing.
func TestE2EUpgradeAppliesFirmware(t *testing.T) {
	t.Parallel()
	profiles := map[string]string{"rack2-c1": "ilo5", "rack2-c2": "supermicro"}
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		inv.Lab, _ = json.Marshal(map[string]any{"bmcProfiles": profiles,
			"firmware": map[string]map[string]string{"rack1-c1": {"bios": "1.10.0"}}})
		// The three firmware shapes, and rack1-c2 with the management servers at the baseline (sent no update).
		e2e.KeepComputes(inv, 2, nil)
	}})
	url := env.Lab.FirmwareURL
	simple := firmware.Apply{Method: firmware.MethodSimpleUpdate}
	env.Inventory.Images.Firmware = map[string]firmware.Baseline{"4.2.0": {
		{Match: firmware.Match{Manufacturer: "Dell Inc.", Model: "PowerEdge R6*"}, Components: []firmware.Component{
			{Name: "iDRAC", Kind: firmware.KindBMC, Inventory: "Remote Access Controller", Minimum: "7.00.30.00", Image: url("bmc-7.00.30.00.exe"), Apply: simple},
			{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "1.13.2", Image: url("bios-1.13.2.exe"),
				Apply: firmware.Apply{Method: firmware.MethodSimpleUpdate, ApplyTime: firmware.ApplyOnReset}},
		}},
		{Match: firmware.Match{Manufacturer: "HPE"}, Components: []firmware.Component{
			{Name: "iLO", Kind: firmware.KindBMC, Inventory: "^iLO 5$", Minimum: "iLO 5 v2.90", Image: url("bmc-2.90.fwpkg"), Apply: simple},
			{Name: "System ROM", Kind: "bios", Inventory: "^System ROM$", Minimum: "U46 v2.90", Image: url("bios-2.90.fwpkg"), Apply: simple},
		}},
		{Match: firmware.Match{Manufacturer: "Supermicro"}, Components: []firmware.Component{
			{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "2.1", Image: url("bios-2.1.bin"),
				Apply: firmware.Apply{Method: firmware.MethodMultipartPush, HostOff: true}},
		}},
	}}
	env.Register()
	require.NotNil(t, env.State().Firmware["4.2.0"])

	st := env.Upgrade(env.Context(15*time.Minute), "4.2.0")
	// The servers' runs with their firmware steps, for the replay tests.
	env.RecordHistoriesAs("firmware", api.ServerUpgradeID(env.Cluster, "rack1-c1"), api.ServerUpgradeID(env.Cluster, "rack2-c1"),
		api.ServerUpgradeID(env.Cluster, "rack2-c2"))
	retired := requireAtTarget(t, env, st)

	want := map[string]map[string]string{
		"rack1-c1": {"bios": "1.13.2"},
		"rack2-c1": {"bios": "2.90", "bmc": "2.90"},
		"rack2-c2": {"bios": "2.1"},
	}
	requests := map[string]int{"rack1-c1": 1, "rack2-c1": 2, "rack2-c2": 1}
	cordons, order := windows(env.Events())
	for _, b := range env.State().Cluster.BMMs {
		if b.Name == retired {
			continue
		}
		got := env.Lab.Machine(b.Name).BMC.State().UpdateRequests
		require.Equal(t, requests[b.Name], got, "%s: update requests (0: at the baseline, not touched)", b.Name)
		require.Equal(t, 1, cordons[b.Name], "%s cordoned once: one disruption", b.Name)
	}
	for name, kinds := range want {
		versions := env.Lab.Machine(name).BMC.FirmwareVersions()
		for kind, v := range kinds {
			require.Equal(t, v, versions[kind], "%s %s at the baseline", name, kind)
		}
		seq := order[name]
		require.Equal(t, events.Cordon, seq[0], "%s: %v", name, seq)
		require.Equal(t, events.ReimageStart, seq[len(seq)-1], "%s: the firmware before the reimage: %v", name, seq)
		require.Len(t, seq, 2+len(kinds), "%s: %v", name, seq)
	}
}

// windows counts each server's cordons and lists, in order, its cordons,
// firmware activations and reimage starts: one window per server shows as
// one cordon with its firmware before its reimage.
func windows(evs []events.Event) (cordons map[string]int, order map[string][]string) {
	cordons, order = map[string]int{}, map[string][]string{}
	for _, e := range evs {
		switch e.Kind {
		case events.Cordon:
			cordons[e.BMM]++
			order[e.BMM] = append(order[e.BMM], e.Kind)
		case events.FirmwareDone, events.ReimageStart:
			order[e.BMM] = append(order[e.BMM], e.Kind)
		}
	}
	return cordons, order
}
