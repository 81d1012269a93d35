package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"sigs.k8s.io/yaml"
)

// writeInventory writes the lab's inventory edited by edit, for register.
func writeInventory(t *testing.T, env *e2e.Env, name string, edit func(inv *model.Inventory)) string {
	t.Helper()
	inv, err := model.LoadInventory(env.InvPath)
	require.NoError(t, err)
	edit(inv)
	b, err := yaml.Marshal(inv)
	require.NoError(t, err)
	path := filepath.Join(env.Dir, name)
	require.NoError(t, os.WriteFile(path, b, 0o600))
	return path
}

// Re-registration on the lab, through the CLI: --plan prints the plan and
// changes nothing; a registration that removes an active KCP is refused
// before any side effect; replace-roles undoes an extra spare that the old
// merge could leave, and a second run has nothing to do.
func TestE2ERegisterPlanAndReplaceRoles(t *testing.T) {
	env := e2e.Start(t, "../examples/four-rack.yaml", e2e.Options{})
	ctx := env.Context(3 * time.Minute)
	cli := func(args ...string) (string, error) {
		out, _, err := run(t, append([]string{"--address", env.Server.Address}, args...)...)
		return out, err
	}
	before := env.State()

	// A server whose name sorts first joins as management, never a fourth KCP.
	grown := writeInventory(t, env, "grown.yaml", func(inv *model.Inventory) {
		s := inv.Racks[0].Servers[0]
		s.Name, s.NodeName, s.SerialNumber, s.BootMACAddress = "rack1-mgmt0", "", "SN-R1M00", "52:54:00:01:00:00"
		s.BMC.Address += "0"
		inv.Racks[0].Servers = append(inv.Racks[0].Servers, s)
	})
	out, err := cli("cluster", "register", "--inventory", grown, "--plan")
	require.NoError(t, err)
	require.Regexp(t, `(?m)^join +rack1-mgmt0 +rack1 +management \(group [ab]\)`, out)
	require.Contains(t, out, "1 joins, 0 leaves, 0 role changes")
	require.Contains(t, out, "nothing changed (--plan)")

	// Removing rack2's KCP is refused, and nothing is written or started.
	shrunk := writeInventory(t, env, "shrunk.yaml", func(inv *model.Inventory) {
		inv.Racks[1].Servers = inv.Racks[1].Servers[1:]
	})
	out, err = cli("cluster", "register", "--inventory", shrunk, "--plan")
	require.NoError(t, err)
	require.Regexp(t, `(?m)^refused .*rack2-mgmt1 in rack rack2 is an active KCP`, out)
	_, err = cli("cluster", "register", "--inventory", shrunk)
	var ce *codedError
	require.True(t, errors.As(err, &ce) && ce.code == exitError, "%v", err)
	require.ErrorContains(t, err, "refused, nothing changed")
	after := env.State()
	require.Equal(t, before.Cluster.BMMs, after.Cluster.BMMs, "--plan and the refused registration changed nothing")
	_, err = env.Client.DescribeWorkflowExecution(ctx, api.MonitorID(env.Cluster), "")
	var nf *serviceerror.NotFound
	require.True(t, errors.As(err, &nf), "no health monitor started: %v", err)

	// The old merge could leave a second spare: replace-roles makes it
	// management again (it serves: a relabel through its lease).
	h, err := env.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: api.ClusterID(env.Cluster), UpdateName: api.UpdateRecordBMM,
		Args:         []any{api.BMMPatch{BMM: "rack1-mgmt2", Roles: []model.Role{model.RoleKCPSpare}}},
		WaitForStage: client.WorkflowUpdateStageCompleted})
	require.NoError(t, err)
	require.NoError(t, h.Get(ctx, nil))
	out, err = cli("cluster", "replace-roles", "--cluster", env.Cluster, "--wait")
	require.NoError(t, err, out)
	require.Regexp(t, `(?m)^change 1/1 +rack1-mgmt2 +rack1 +kcp-spare -> management`, out)
	require.Contains(t, out, "re-placement of "+env.Cluster+" done: 1 role changes")
	b := ledgerBMMOf(t, env, "rack1-mgmt2")
	require.Equal(t, []model.Role{model.RoleManagement}, b.Roles)
	require.NotEmpty(t, b.ManagementGroup)
	require.Empty(t, env.State().Leases)
	// With RACKROLL_RECORD_HISTORIES set, the re-placement's history is
	// recorded for the replay tests (workflows/testdata/histories).
	env.RecordHistories(api.ReplaceRolesID(env.Cluster))

	out, err = cli("cluster", "replace-roles", "--cluster", env.Cluster)
	require.NoError(t, err)
	require.Contains(t, out, "the roles are the table for 4 racks (3 active KCPs, 1 spare): nothing to change")
}
