package main

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// Issue 37's upgrade: a BMM keyset with two users is on every server of a
// four-rack site; a runtime upgrade reinstalls them (the lab's node forgets
// its users with its OS) and completes; afterwards the users are back on
// every reinstalled server, and every keyset pod of that came after the
// upgrade's last reinstall — re-established once the upgrade completed,
// as the operator documents say, not rack by rack. The lab's event log
// breaks no invariant.
func TestE2EKeysetsReestablishedAfterUpgrade(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../examples/four-rack.yaml", e2e.Options{
		Mutate: func(inv *model.Inventory) { e2e.KeepComputes(inv, 1, nil) }, // the subject is every rack's reinstall, not its size
	})
	ctx := env.Context(12 * time.Minute)
	keysetNamespace(t, ctx, env.Clientset(ctx))
	c := []string{"--address", env.Server.Address, "--cluster", env.Cluster}
	second := "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBCt/xlsHfKpnOyadrs2xcFOfdbd7e+e8ATW9WSEAoZEGI7vGQEPtO0JrK7i3b4TpBJ9YLWgcX7f5S/g0DNheA6U= bob@test"
	spec := keyset.Spec{Name: "oncall", Kind: keyset.KindBMM, PrivilegeLevel: keyset.Standard, Expiration: time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second),
		Users: []keyset.User{{Name: "alice", SSHPublicKey: testPublicKey}, {Name: "bob", SSHPublicKey: second}}}
	out, _, err := run(t, append([]string{"keyset", "create", "--file", keysetYAML(t, spec)}, c...)...)
	require.NoError(t, err, out)
	machines := env.Lab.Machines()
	holds := func(name string) bool {
		return len(env.Lab.Sim.NodeUsers(env.Lab.Sim.NodeName(name))) == 2
	}
	env.Eventually(2*time.Minute, "both users on every node", func() bool {
		for _, m := range machines {
			if !holds(m.Name) {
				return false
			}
		}
		return true
	})

	st := env.Upgrade(ctx, "4.2.0")
	require.Contains(t, st.KeysNote, api.KeysetNodesID(env.Cluster))
	var reinstalled []string
	for name, n := range env.Lab.ReimageCounts() {
		if n > 0 {
			reinstalled = append(reinstalled, name)
		}
	}
	require.NotEmpty(t, reinstalled)
	env.Eventually(2*time.Minute, "both users back on every reinstalled server", func() bool {
		for _, name := range reinstalled {
			if !holds(name) {
				return false
			}
		}
		return true
	})
	var lastReinstall time.Time
	var pods []events.Event
	evs := env.Events()
	for _, e := range evs {
		switch e.Kind {
		case events.ReimageDone:
			lastReinstall = e.Time
		case events.KeysetPod:
			pods = append(pods, e)
		}
	}
	again := 0
	for _, p := range pods {
		if p.Time.After(st.StartedAt) {
			require.True(t, p.Time.After(lastReinstall), "keyset pod on %s at %s, before the last reinstall at %s", p.BMM, p.Time, lastReinstall)
			again++
		}
	}
	require.GreaterOrEqual(t, again, len(reinstalled), "a keyset pod on every reinstalled server after the upgrade")
	site, err := invariants.SiteFromInventory(env.Inventory)
	require.NoError(t, err)
	require.Empty(t, invariants.Check(evs, invariants.WithUpgrade(site, st)), "starter lab check: violations")
}
