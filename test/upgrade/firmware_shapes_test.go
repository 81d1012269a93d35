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

// Issue 48's upgrade, end to end: a site with one server of each firmware
// shape issue 48 taught the lab, each below the target's baseline —
//   - noinventory (sushy-tools): no FirmwareInventory, the versions only in
//     System.BiosVersion and Manager.FirmwareVersion;
//   - targets-required: a SimpleUpdate whose ActionInfo requires Targets
//     (its BMC's own firmware is at the baseline: that BMC refuses Targets
//     naming the Manager, in its words);
//   - tasks-204: updates answered 204 with the task in Location;
//   - supermicro-x12: pushes naming Targets with OnStartUpdateRequest, then
//     StartUpdate, its BIOS Scheduled until the host resets —
//
// is upgraded: each ends at the target runtime and at the baseline, the
// firmware applied between its one cordon and its reimage, the lab counts
// one update request per component below the baseline (and none for the
// servers no baseline entry covers), and `starter lab check` finds
// nothing. (One host reset for all staged components of a server is not
// asserted here.)
func TestE2EUpgradeAppliesFirmwareAsEachBMCAsks(t *testing.T) {
	t.Parallel()
	profiles := map[string]string{
		"rack1-c1": "noinventory", "rack1-c2": "targets-required",
		"rack2-c1": "tasks-204", "rack2-c2": "supermicro-x12",
	}
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		inv.Lab, _ = json.Marshal(map[string]any{"bmcProfiles": profiles,
			// targets-required refuses Targets naming its Manager
			// (sushy-tools): its BMC starts at the baseline.
			"firmware": map[string]map[string]string{"rack1-c2": {"bmc": "4.5"}}})
		// Two computes a rack: the four shapes. The management servers
		// (iDRAC9, Dell) are in no baseline entry: never sent an update.
		e2e.KeepComputes(inv, 2, nil)
	}})
	for name, p := range profiles {
		require.Equal(t, p, env.Lab.Machine(name).Profile)
	}
	url := env.Lab.FirmwareURL
	simple := firmware.Apply{Method: firmware.MethodSimpleUpdate}
	push := firmware.Apply{Method: firmware.MethodMultipartPush}
	// The baseline per manufacturer and model as the profiles report them:
	// noinventory, targets-required and tasks-204 are DMTF's mockup
	// (Contoso 3500: BIOS "P79 v1.45 (12/06/2017)", BMC "4.4.6521";
	// sushy-tools' defaults 1.0.0 and 1.00 on noinventory), the X12 a
	// Supermicro SYS-510T-MR (BIOS 2.0, BMC 01.01.06). No component names
	// a source: each BMC is read where it keeps its versions.
	env.Inventory.Images.Firmware = map[string]firmware.Baseline{"4.2.0": {
		{Match: firmware.Match{Manufacturer: "Contoso", Model: "3500"}, Components: []firmware.Component{
			{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "1.46", Image: url("bios-1.46.bin"), Apply: simple},
			{Name: "BMC", Kind: firmware.KindBMC, Inventory: "^BMC$", Minimum: "4.5", Image: url("bmc-4.5.bin"), Apply: simple},
		}},
		{Match: firmware.Match{Manufacturer: "Supermicro", Model: "SYS-510T-MR"}, Components: []firmware.Component{
			{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "2.1", Image: url("bios-2.1.bin"), Apply: push},
			{Name: "BMC", Kind: firmware.KindBMC, Inventory: "^BMC$", Minimum: "01.02.00", Image: url("bmc-01.02.00.bin"), Apply: push},
		}},
	}}
	env.Register()
	require.NotNil(t, env.State().Firmware["4.2.0"])

	st := env.Upgrade(env.Context(15*time.Minute), "4.2.0")
	env.RecordHistoriesAs("fwshapes", api.ServerUpgradeID(env.Cluster, "rack1-c1"), api.ServerUpgradeID(env.Cluster, "rack1-c2"),
		api.ServerUpgradeID(env.Cluster, "rack2-c1"), api.ServerUpgradeID(env.Cluster, "rack2-c2"))
	retired := requireAtTarget(t, env, st) // every server at 4.2.0, uncordoned; lab check: 0 violations

	// What each server runs at the end, read back from its BMC, and the
	// update requests per component the lab counted.
	want := map[string]map[string]string{
		"rack1-c1": {"bios": "1.46", "bmc": "4.5"},
		"rack1-c2": {"bios": "1.46", "bmc": "4.5"},
		"rack2-c1": {"bios": "1.46", "bmc": "4.5"},
		"rack2-c2": {"bios": "2.1", "bmc": "01.02.00"},
	}
	requests := map[string]map[string]int{
		"rack1-c1": {"bios": 1, "bmc": 1},
		"rack1-c2": {"bios": 1},
		"rack2-c1": {"bios": 1, "bmc": 1},
		"rack2-c2": {"bios": 1, "bmc": 1},
	}
	cordons, order := windows(env.Events())
	for _, b := range env.State().Cluster.BMMs {
		if b.Name == retired {
			continue
		}
		bmc := env.Lab.Machine(b.Name).BMC
		require.Equal(t, 1, cordons[b.Name], "%s cordoned (and drained) once: one disruption", b.Name)
		if requests[b.Name] == nil {
			require.Zero(t, bmc.State().UpdateRequests, "%s: in no baseline entry, sent no update", b.Name)
			continue
		}
		require.Equal(t, requests[b.Name], bmc.UpdateRequestsByKind(), "%s (%s): one update request per component below", b.Name, profiles[b.Name])
		versions := bmc.FirmwareVersions()
		for kind, v := range want[b.Name] {
			require.Equal(t, v, versions[kind], "%s (%s) %s at the baseline", b.Name, profiles[b.Name], kind)
		}
		seq := order[b.Name]
		require.Equal(t, events.Cordon, seq[0], "%s: %v", b.Name, seq)
		require.Equal(t, events.ReimageStart, seq[len(seq)-1], "%s: the firmware before the reimage: %v", b.Name, seq)
		require.Len(t, seq, 2+len(requests[b.Name]), "%s: cordon, a version active per component, reimage: %v", b.Name, seq)
	}
	// The X12's pushes were each held until one StartUpdate.
	require.Equal(t, 2, env.Lab.Machine("rack2-c2").BMC.StartUpdates(), "supermicro-x12: one StartUpdate per push")
}
