package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// A replace of a lab server on an old BIOS is refused, naming the
// component with its current and required version, before any side
// effect (no update sent, no reset, no reimage); with --apply-firmware it
// completes, the BIOS updated inside the replace (one update request),
// and `bmm firmware` then shows every component at the baseline.
func TestE2EReplaceChecksFirmware(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../examples/two-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		inv.Images.Firmware = map[string]firmware.Baseline{"4.1.2": labBaseline(), "4.2.0": labBaseline()}
		inv.Lab, _ = json.Marshal(map[string]any{"firmware": map[string]map[string]string{"rack1-c1": {"bios": "1.10.0"}}})
	}})
	cli := func(args ...string) (string, error) {
		out, _, err := run(t, append([]string{"--address", env.Server.Address}, args...)...)
		return out, err
	}
	bmc := env.Lab.Machine("rack1-c1").BMC

	// `upgrade plan` says which servers the upgrade's firmware step
	// would give which components; it only reads.
	js, err := cli("upgrade", "plan", "--cluster", env.Cluster, "--version", "4.2.0", "-o", "json")
	require.NoError(t, err, js)
	var plan struct {
		Firmware []plannedFirmware `json:"firmware"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &plan), js)
	require.Len(t, plan.Firmware, len(env.State().Cluster.BMMs))
	for _, f := range plan.Firmware {
		require.Empty(t, f.Error, f.BMM)
		if f.BMM == "rack1-c1" {
			require.Equal(t, []string{"BIOS 1.10.0 (FirmwareInventory/Installed-159-1.10.0__BIOS.Setup.1-1) → 1.13.2"}, f.Apply)
		} else {
			require.Empty(t, f.Apply, f.BMM)
		}
	}
	table, err := cli("upgrade", "plan", "--cluster", env.Cluster, "--version", "4.2.0")
	require.NoError(t, err, table)
	require.Contains(t, table, "Firmware rack1-c1: gets BIOS 1.10.0 (FirmwareInventory/Installed-159-1.10.0__BIOS.Setup.1-1) → 1.13.2")
	require.Contains(t, table, fmt.Sprintf("%d of %d servers at it already", len(plan.Firmware)-1, len(plan.Firmware)))
	// Refused for the safeguard first (a healthy server, safeguardMode
	// All), then at once with the word it asks for: refused for the
	// firmware, not "busy" — the refused run gave its lease back.
	guarded, err := cli("bmm", "replace", "--cluster", env.Cluster, "--bmm", "rack1-c1", "--wait")
	require.ErrorContains(t, err, "--safeguard-mode None")
	env.RecordHistoriesAs("refused", strings.SplitN(guarded, "\n", 2)[0])
	replace := []string{"bmm", "replace", "--cluster", env.Cluster, "--bmm", "rack1-c1", "--safeguard-mode", "None", "--wait"}

	_, err = cli(replace...)
	require.NotContains(t, fmt.Sprint(err), "busy")
	require.ErrorContains(t, err, "bmm rack1-c1's firmware is not at the baseline of runtime 4.1.2 (Dell Inc. PowerEdge R6*)")
	require.ErrorContains(t, err, "BIOS (Installed-159-1.10.0__BIOS.Setup.1-1) 1.10.0, requires 1.13.2")
	require.ErrorContains(t, err, "--apply-firmware")
	var ce *codedError
	require.True(t, errors.As(err, &ce) && ce.code == exitFailed, "%v", err)
	require.Zero(t, bmc.State().UpdateRequests, "refused before any update")
	for _, e := range env.Events() {
		if e.BMM == "rack1-c1" {
			require.NotContains(t, []string{events.Cordon, events.Reset, events.ReimageStart, events.PowerOff}, e.Kind, "refused before any side effect")
		}
	}
	require.Equal(t, model.Uncordoned, ledgerBMMOf(t, env, "rack1-c1").CordonStatus)
	require.Empty(t, env.State().Leases, "the refused run gave back the lease the starter took for it")

	out, err := cli(append(replace, "--apply-firmware")...)
	require.NoError(t, err)
	require.Contains(t, out, "firmware BIOS 1.10.0 → 1.13.2")
	// The replace with its firmware step, for the replay tests (its id is
	// the first line the starter prints).
	env.RecordHistoriesAs("firmware", strings.SplitN(out, "\n", 2)[0])
	require.Equal(t, 1, bmc.State().UpdateRequests, "one update, the BIOS's")
	require.Equal(t, "4.1.2", ledgerBMMOf(t, env, "rack1-c1").RuntimeVersion)

	js, err = cli("bmm", "firmware", "--cluster", env.Cluster, "--bmm", "rack1-c1", "-o", "json")
	require.NoError(t, err)
	var servers []serverFirmware
	require.NoError(t, json.Unmarshal([]byte(js), &servers), js)
	require.Len(t, servers, 1)
	require.NotEmpty(t, servers[0].Rows)
	for _, r := range servers[0].Rows {
		require.Equal(t, firmware.AtBaseline, r.Status, "%s %s", r.Component, r.Current)
	}
	require.Equal(t, "1.13.2", servers[0].Rows[0].Current)

	// The firmware's host start came before the reinstall, inside the
	// one evacuation.
	var order []string
	for _, e := range env.Events() {
		if e.BMM == "rack1-c1" && (e.Kind == events.Cordon || e.Kind == events.FirmwareDone || e.Kind == events.ReimageStart) {
			order = append(order, e.Kind)
		}
	}
	require.Equal(t, []string{events.Cordon, events.FirmwareDone, events.ReimageStart}, order)
}
