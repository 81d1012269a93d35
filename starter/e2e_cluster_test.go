package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"sigs.k8s.io/yaml"
)

// Break-glass on the lab, through the CLI: two KCPs of the one-rack site go
// Unknown, the storm guard sets the cluster Degraded; a restart is refused,
// a forced KCP restart is still refused by the control-plane checks, a
// forced compute restart runs; `cluster resume` returns the cluster to
// Running (and the storm guard leaves it so); `cluster history` and the
// ledger's Temporal history carry both reasons.
func TestE2EBreakGlass(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../examples/one-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		s := func(d time.Duration) model.Duration { return model.Duration(d) }
		inv.Remediation = &model.RemediationSpec{Interval: s(time.Second), NodeUnknownFor: s(3 * time.Second),
			ReadOnlyRootFilesystemFor: s(3 * time.Second), ProvisioningTimeout: s(time.Minute),
			RebootTimeout: s(10 * time.Second), ReprovisionTimeout: s(20 * time.Second), MaxConcurrentCompute: 5}
	}})
	ctx := env.Context(4 * time.Minute)
	_, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: api.MonitorID(env.Cluster), TaskQueue: api.TaskQueue},
		api.HealthMonitorWorkflowName, api.MonitorInput{Cluster: env.Cluster})
	require.NoError(t, err)
	defer env.Client.TerminateWorkflow(context.Background(), api.MonitorID(env.Cluster), "", "test done")
	for _, b := range []string{"rack1-mgmt2", "rack1-mgmt3"} {
		require.NoError(t, env.Lab.SetFault(b, "node-unknown", 0, false))
	}
	env.Eventually(time.Minute, "the storm guard sets the cluster Degraded", func() bool {
		c := env.State().Cluster
		return c.DetailedStatus == model.ClusterDegraded && strings.HasPrefix(c.DetailedStatusMessage, "storm guard")
	})
	cli := func(args ...string) (string, error) {
		out, _, err := run(t, append([]string{"--address", env.Server.Address}, args...)...)
		return out, err
	}
	const forceReason, resumeReason = "INC-77: c1 wedged, mgmt2/3 PSU swap under way", "INC-77: storm known, PSUs on order"

	_, err = cli("bmm", "restart", "--cluster", env.Cluster, "--bmm", "rack1-c1", "--wait")
	require.ErrorContains(t, err, "is Degraded, not Running: storm guard")
	var ce *codedError
	require.True(t, errors.As(err, &ce) && ce.code == exitError, "%v", err)

	// --force lifts the cluster status only: a KCP disruption with two
	// members down is still refused.
	_, err = cli("bmm", "restart", "--cluster", env.Cluster, "--bmm", "rack1-mgmt1", "--force", "--reason", "INC-77: try the KCP", "--wait")
	require.ErrorContains(t, err, "restart of rack1-mgmt1 refused")
	require.ErrorContains(t, err, "rack1-mgmt2")
	require.Equal(t, model.PowerOn, ledgerBMMOf(t, env, "rack1-mgmt1").PowerState)

	out, err := cli("bmm", "restart", "--cluster", env.Cluster, "--bmm", "rack1-c1", "--force", "--reason", forceReason, "--wait")
	require.NoError(t, err)
	require.Contains(t, out, "restarted rack1-c1")

	out, err = cli("cluster", "resume", "--cluster", env.Cluster, "--reason", resumeReason, "-o", "json")
	require.NoError(t, err)
	var res api.ResumeResult
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	require.Equal(t, model.ClusterDegraded, res.PreviousStatus)
	require.Contains(t, res.PreviousMessage, "rack1-mgmt2, rack1-mgmt3")
	require.Equal(t, model.ClusterRunning, res.Status)
	require.Equal(t, model.ClusterRunning, env.State().Cluster.DetailedStatus)
	time.Sleep(3 * time.Second) // three monitor rounds with the same storm
	require.Equal(t, model.ClusterRunning, env.State().Cluster.DetailedStatus, "the storm guard leaves the resumed cluster Running")
	_, err = cli("cluster", "resume", "--cluster", env.Cluster, "--reason", "again")
	require.ErrorContains(t, err, "is Running: resume is for a Degraded or Failed cluster")

	out, err = cli("cluster", "history", "--cluster", env.Cluster, "--bmm", "rack1-c1", "-o", "json")
	require.NoError(t, err)
	var rows []historyRow
	require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
	reasons := map[string]string{}
	for _, r := range rows {
		reasons[r.Operation] = r.Reason
	}
	require.Equal(t, forceReason, reasons["break-glass force"], out)
	require.Equal(t, resumeReason, reasons["break-glass resume"], out)

	// The Temporal history of the ledger carries both acts and reasons: the
	// accepted Updates' inputs.
	var accepted strings.Builder
	it := env.Client.GetWorkflowHistory(ctx, api.ClusterID(env.Cluster), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if a := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil {
			in := a.GetAcceptedRequest().GetInput()
			accepted.WriteString(in.GetName() + " ")
			for _, p := range in.GetArgs().GetPayloads() {
				accepted.Write(p.GetData())
			}
			accepted.WriteString("\n")
		}
	}
	require.Contains(t, accepted.String(), forceReason)
	require.Contains(t, accepted.String(), api.UpdateResume+" ")
	require.Contains(t, accepted.String(), resumeReason)

	t.Run("lease release: refused while the holder runs, freed once it has ended", func(t *testing.T) {
		const bmm = "rack1-c2"
		require.NoError(t, env.Lab.SetFault(bmm, "reimage-hangs", 0, false))
		out, err := cli("bmm", "reimage", "--cluster", env.Cluster, "--bmm", bmm)
		require.NoError(t, err)
		holder := strings.TrimSpace(out)
		_, err = cli("lease", "release", "--cluster", env.Cluster, "--bmm", bmm, "--reason", "INC-78: looks stuck")
		require.ErrorContains(t, err, "held by "+holder+" (reimage), which is still running")
		require.Len(t, env.State().Leases, 1)

		// Terminated, it never gives its lease back itself.
		require.NoError(t, env.Client.TerminateWorkflow(ctx, holder, "", "operator: stuck"))
		out, err = cli("lease", "release", "--cluster", env.Cluster, "--bmm", bmm, "--reason", "INC-78: holder terminated", "-o", "json")
		require.NoError(t, err)
		require.Contains(t, out, holder)
		require.Empty(t, env.State().Leases)
		out, err = cli("cluster", "history", "--cluster", env.Cluster, "-o", "json")
		require.NoError(t, err)
		require.Contains(t, out, `"reason": "INC-78: holder terminated"`)
		require.Contains(t, out, "break-glass lease-release")
	})
}

func ledgerBMMOf(t *testing.T, env *e2e.Env, name string) model.BMM {
	st := env.State()
	b, ok := st.Cluster.BMM(name)
	require.True(t, ok, name)
	return *b
}

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
	t.Parallel()
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
