package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// labBaseline is a baseline for the lab's iDRAC9, iLO 5 and noinventory
// (sushy-tools') profiles.
func labBaseline() firmware.Baseline {
	simple := firmware.Apply{Method: firmware.MethodSimpleUpdate}
	return firmware.Baseline{
		{Match: firmware.Match{Manufacturer: "Dell Inc.", Model: "PowerEdge R6*"}, Components: []firmware.Component{
			{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "1.13.2", Image: "http://fw.lab/bios-1.13.2.exe", Apply: simple},
			{Name: "iDRAC", Kind: "bmc", Inventory: "Remote Access Controller", Minimum: "7.00.30.00", Image: "http://fw.lab/bmc-7.00.30.00.exe", Apply: simple},
		}},
		{Match: firmware.Match{Manufacturer: "HPE"}, Components: []firmware.Component{
			{Name: "System ROM", Kind: "bios", Inventory: "^System ROM$", Minimum: "U46 v2.90", Image: "http://fw.lab/bios-2.90.fwpkg", Apply: simple},
		}},
		{Match: firmware.Match{Manufacturer: "Contoso"}, Components: []firmware.Component{
			{Name: "BIOS", Kind: "bios", Inventory: "^BIOS$", Minimum: "1.1.0", Image: "http://fw.lab/bios-1.1.0.bin", Apply: simple},
			{Name: "BMC", Kind: "bmc", Inventory: "^BMC$", Minimum: "1.00", Image: "http://fw.lab/bmc-1.00.bin", Apply: simple},
		}},
	}
}

// `bmm firmware` reads every BMC of a registered lab site and shows each
// component against the baseline of its runtime: at baseline, below (a
// server the lab started on an older BIOS; an iLO on an old System ROM),
// and a server no entry covers; -o json carries the same.
func TestE2EBMMFirmware(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../examples/two-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		inv.Images.Firmware = map[string]firmware.Baseline{"4.1.2": labBaseline()}
		inv.Lab, _ = json.Marshal(map[string]any{
			"bmcProfiles": map[string]string{"rack2-c1": "ilo5", "rack2-c2": "supermicro", "rack2-c3": "noinventory"},
			"firmware":    map[string]map[string]string{"rack1-c1": {"bios": "1.10.0"}},
		})
	}})
	require.NotNil(t, env.State().Firmware["4.1.2"], "the ledger keeps the baseline")

	out, _, err := run(t, "--address", env.Server.Address, "bmm", "firmware", "--cluster", env.Cluster, "-o", "json")
	require.NoError(t, err, out)
	var servers []serverFirmware
	require.NoError(t, json.Unmarshal([]byte(out), &servers), out)
	byName := map[string]serverFirmware{}
	for _, s := range servers {
		byName[s.BMM] = s
		require.Empty(t, s.Error, s.BMM)
		require.Equal(t, "4.1.2", s.RuntimeVersion)
	}
	require.Len(t, byName, len(env.State().Cluster.BMMs))

	c1 := byName["rack1-c1"]
	require.Len(t, c1.Rows, 2)
	require.Equal(t, firmware.Below, c1.Rows[0].Status)
	require.Equal(t, "1.10.0", c1.Rows[0].Current)
	require.Equal(t, "FirmwareInventory/Installed-159-1.10.0__BIOS.Setup.1-1", c1.Rows[0].Source, "where each version was read")
	require.Equal(t, firmware.AtBaseline, c1.Rows[1].Status)
	require.Equal(t, []firmware.Status{firmware.AtBaseline, firmware.AtBaseline}, []firmware.Status{byName["rack1-c2"].Rows[0].Status, byName["rack1-c2"].Rows[1].Status})
	ilo := byName["rack2-c1"]
	require.Equal(t, "HPE", ilo.Manufacturer)
	require.Equal(t, firmware.Below, ilo.Rows[0].Status)
	require.Equal(t, "U46 v1.64 (08/11/2022)", ilo.Rows[0].Current)
	sushy := byName["rack2-c3"] // no FirmwareInventory: its System and Manager say
	require.Equal(t, "UpdateService/FirmwareInventory: HTTP 404", sushy.NoInventory)
	require.Len(t, sushy.Rows, 2)
	require.Equal(t, []string{"System.BiosVersion", "1.0.0", string(firmware.Below)}, []string{sushy.Rows[0].Source, sushy.Rows[0].Current, string(sushy.Rows[0].Status)})
	require.Equal(t, []string{"Manager.FirmwareVersion", "1.00", string(firmware.AtBaseline)}, []string{sushy.Rows[1].Source, sushy.Rows[1].Current, string(sushy.Rows[1].Status)})
	require.Empty(t, byName["rack2-c2"].Rows)
	require.Contains(t, byName["rack2-c2"].Note, "no baseline entry matches Supermicro SYS-510T-MR")

	table, _, err := run(t, "--address", env.Server.Address, "bmm", "firmware", "--cluster", env.Cluster, "--bmm", "rack1-c1")
	require.NoError(t, err)
	require.Contains(t, table, "COMPONENT")
	require.Regexp(t, `rack1-c1\s+4\.1\.2\s+BIOS\s+1\.10\.0\s+FirmwareInventory/Installed-159-1\.10\.0__BIOS\.Setup\.1-1\s+1\.13\.2\s+below`, table)
	require.Regexp(t, `rack1-c1\s+4\.1\.2\s+iDRAC\s+7\.00\.30\.00\s+FirmwareInventory/\S+\s+7\.00\.30\.00\s+✔`, table)
	require.NotContains(t, table, "rack1-c2")

	// Against a release that declares no baseline, nothing is judged.
	none, _, err := run(t, "--address", env.Server.Address, "bmm", "firmware", "--cluster", env.Cluster, "--bmm", "rack1-c2", "--version", "4.2.0")
	require.NoError(t, err)
	require.Contains(t, none, "no firmware baseline declared for runtime 4.2.0")

	_, _, err = run(t, "--address", env.Server.Address, "bmm", "firmware", "--cluster", env.Cluster, "--bmm", "ghost")
	require.ErrorContains(t, err, `--bmm "ghost": not a BMM of cluster `+env.Cluster)

	for _, m := range []string{"rack1-c1", "rack2-c1"} {
		require.Zero(t, env.Lab.Machine(m).BMC.State().UpdateRequests, "reading sends no update")
	}
	t.Log("\n" + strings.TrimSpace(table))
}
