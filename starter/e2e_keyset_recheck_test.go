package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// A BMC keyset applied on every BMC; then a replace of rack1-c1 whose
// iDRAC is below the baseline, on a BMC whose update comes back with its
// factory accounts only (fault bmc-accounts-reset): the replace updates
// the iDRAC, the BMC loses the keyset's accounts, and once the replace is
// done the keyset's waiting run makes them again on that BMC alone, with
// the Secrets' passwords, and records its outcome anew. The other BMCs
// are not written to; the lab's event log breaks no invariant.
func TestE2EReplaceWithBMCFirmwareReappliesAccounts(t *testing.T) {
	t.Parallel()
	pass := bmcPasswords
	env := e2e.Start(t, "../examples/one-rack.yaml", e2e.Options{
		Mutate: func(inv *model.Inventory) {
			e2e.KeepComputes(inv, 2, nil)
			inv.Images.Firmware = map[string]firmware.Baseline{"4.1.2": labBaseline()}
			inv.Lab = []byte(`{"firmware": {"rack1-c1": {"bmc": "6.10.00.00"}}, "faults": [{"bmm": "rack1-c1", "kind": "bmc-accounts-reset"}]}`)
		},
		StartWorker: withSecrets(t, pass),
	})
	c := []string{"--address", env.Server.Address, "--cluster", env.Cluster}
	cli := func(args ...string) string {
		out, _, err := run(t, append(args, c...)...)
		require.NoError(t, err, "starter %s: %s", strings.Join(args, " "), out)
		return out
	}
	spec := bmcOncall()
	bmms := len(env.Lab.Machines())
	cli("keyset", "create", "--file", keysetYAML(t, spec))
	res := env.KeysetOutcomes(time.Minute, spec.Name)
	require.Equal(t, bmms, res.Applied, "outcomes %+v", res)
	hasAccounts := func(name string) bool {
		m := env.Lab.Machine(name)
		for user, p := range pass {
			if !m.BMC.AccountPasswordIs(user, p) {
				return false
			}
		}
		return true
	}
	writes := map[string]int{}
	for _, m := range env.Lab.Machines() {
		require.True(t, hasAccounts(m.Name), "%s: the keyset's accounts", m.Name)
		writes[m.Name] = m.BMC.AccountWrites()
	}
	replaced := time.Now()

	out := cli("bmm", "replace", "--bmm", "rack1-c1", "--safeguard-mode", "None", "--apply-firmware", "--wait")
	require.Contains(t, out, "iDRAC 6.10.00.00 → 7.00.30.00")
	reset := false
	for _, e := range env.Events() {
		if e.BMM == "rack1-c1" && e.Kind == events.BMCReset && e.Detail["accounts"] != nil {
			reset = true
		}
	}
	require.True(t, reset, "the iDRAC's update came back with its factory accounts")

	env.Eventually(time.Minute, "the keyset's accounts on rack1-c1's BMC again", func() bool { return hasAccounts("rack1-c1") })
	env.Eventually(time.Minute, "rack1-c1's outcome recorded after the replace", func() bool {
		k, ok := keyset.Find(env.State().Keysets, spec.Name)
		o := keyset.OutcomesFor(k, []string{"rack1-c1"})[0]
		return ok && o.State == keyset.Applied && !o.At.Before(replaced.Truncate(time.Minute))
	})
	for _, m := range env.Lab.Machines() {
		if m.Name != "rack1-c1" {
			require.Equal(t, writes[m.Name], m.BMC.AccountWrites(), "%s: no account written on a BMC that kept its accounts", m.Name)
		}
	}
	var v keysetView
	require.NoError(t, json.Unmarshal([]byte(cli("keyset", "show", "--name", spec.Name, "-o", "json")), &v))
	for _, o := range v.BMCs {
		require.Equal(t, keyset.Applied, o.State, "%+v", o)
	}
	require.Equal(t, api.KeysetID(env.Cluster, spec.Name), runningKeysetRun(t, env, spec.Name), "the run still waits for the expiration")

	evs, err := events.ReadFile(env.EventsPath)
	require.NoError(t, err)
	site, err := invariants.SiteFromInventory(env.Inventory)
	require.NoError(t, err)
	require.Empty(t, invariants.Check(evs, site), "starter lab check finds nothing wrong")
}

// runningKeysetRun is the keyset's run's id while it runs, "" otherwise.
func runningKeysetRun(t *testing.T, env *e2e.Env, name string) string {
	t.Helper()
	id := api.KeysetID(env.Cluster, name)
	d, err := env.Client.DescribeWorkflowExecution(env.Context(time.Minute), id, "")
	require.NoError(t, err)
	if d.GetWorkflowExecutionInfo().GetCloseTime() != nil {
		return ""
	}
	return id
}
