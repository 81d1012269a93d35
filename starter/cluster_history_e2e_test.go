package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// `cluster history` on the dev server: a restart and an upgrade touched
// rack1-c1; the history lists both, the upgrade with the rack and runtime
// upgrades it ran under, and nothing of rack1-c2.
func TestE2EClusterHistory(t *testing.T) {
	env := e2e.Start(t, "../examples/two-rack.yaml", e2e.Options{})
	ctx := env.Context(5 * time.Minute)
	const bmm = "rack1-c1"

	action, err := startAction(ctx, env.Client, api.ActionInput{Cluster: env.Cluster, BMM: bmm, Action: api.ActionRestart})
	require.NoError(t, err)
	_, err = waitAction(ctx, action)
	require.NoError(t, err)

	up, err := env.StartUpgrade(ctx, "4.2.0")
	require.NoError(t, err)
	require.NoError(t, up.Get(ctx, nil))

	// Visibility is written asynchronously: wait until all four are listed.
	var rows []historyRow
	env.Eventually(30*time.Second, "four history rows", func() bool {
		out, _, err := run(t, "--address", env.Server.Address, "cluster", "history", "--cluster", env.Cluster, "--bmm", bmm, "-o", "json")
		require.NoError(t, err)
		rows = nil
		require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
		return len(rows) == 4
	})
	byID := map[string]historyRow{}
	for _, r := range rows {
		byID[r.WorkflowID] = r
		require.Equal(t, "completed", r.Status, r.WorkflowID)
	}
	require.Equal(t, "restart", byID[action.GetID()].Operation)
	require.Contains(t, byID[action.GetID()].Result, "restarted "+bmm)

	server := byID[api.ServerUpgradeID(env.Cluster, bmm)]
	require.Equal(t, "upgrade", server.Operation)
	require.Equal(t, api.RackUpgradeID(env.Cluster, "rack1"), server.Parent)
	require.Contains(t, server.Result, "upgraded to 4.2.0")
	require.Equal(t, api.UpgradeID(env.Cluster), byID[api.RackUpgradeID(env.Cluster, "rack1")].Parent)
	require.Equal(t, "runtime-upgrade", byID[api.UpgradeID(env.Cluster)].Operation)
	require.True(t, rows[0].Time.Before(rows[len(rows)-1].Time) || rows[0].Time.Equal(rows[len(rows)-1].Time))

	out, _, err := run(t, "--address", env.Server.Address, "cluster", "history", "--cluster", env.Cluster, "--bmm", bmm)
	require.NoError(t, err)
	require.Contains(t, out, "WORKFLOW ID")
	require.Contains(t, out, api.ServerUpgradeID(env.Cluster, bmm))
	require.NotContains(t, out, "rack1-c2")
	t.Log("\n" + strings.TrimSpace(out))
}
