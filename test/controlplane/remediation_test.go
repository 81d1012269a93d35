package controlplane_test

import (
	"context"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
)

// killKCP kills kcp, the active KCP whose spare is spare (both checked
// first), and waits within limit for its remediation to fail it over with
// an outcome saying want; ctx is bounded by limit.
func killKCP(t *testing.T, env *e2e.Env, kcp, spare string, limit time.Duration, want string) (ctx context.Context, fs api.FailoverStatus) {
	t.Helper()
	require.Equal(t, model.RoleKCP, env.BMM(kcp).Roles[0])
	require.Equal(t, model.RoleKCPSpare, env.BMM(spare).Roles[0])
	env.KillServer(kcp)
	ctx = env.Context(limit)
	rs, fs := env.FailedOver(ctx, kcp)
	require.Contains(t, rs.Outcome, want, rs.Outcome)
	return ctx, fs
}

// (a) The KCP goes Unknown and its reboot fails: it is marked Unhealthy and
// failed over. The spare is the KCP, a management server the spare, the
// failed server management (its provisioning fails too: it stays
// Unhealthy); the node labels follow, and the lab's log never shows fewer
// KCP-labelled nodes than the cluster's one.
func TestE2ERemediationKCPFailover(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: e2e.FastRemediation}).StartMonitor()
	const kcp, spare = "rack1-mgmt1", "rack2-mgmt1"
	_, fs := killKCP(t, env, kcp, spare, 2*time.Minute, "reboot failed; marked Unhealthy; failed over to the spare")
	require.NotEmpty(t, fs.NewSpare)
	require.False(t, fs.FailedRecovered, fs.FailedOutcome)
	env.RecordHistories(api.RemediationID(env.Cluster, kcp), api.FailoverID(env.Cluster), api.MonitorID(env.Cluster))

	st := env.State()
	roles := map[string]model.Role{}
	for _, b := range st.Cluster.BMMs {
		roles[b.Name] = b.Roles[0]
	}
	require.Equal(t, model.RoleKCP, roles[spare])
	require.Equal(t, model.RoleKCPSpare, roles[fs.NewSpare])
	require.Equal(t, model.RoleManagement, roles[kcp])
	failed, _ := st.Cluster.BMM(kcp)
	require.Equal(t, model.UnhealthyMessage, failed.DetailedStatusMessage)
	require.Empty(t, st.Leases, "every lease released")

	// Labels, replayed from the lab's event log: the initial placement,
	// then every role label the ledger wrote, and node deletions.
	evs := env.Events()
	label := map[string]string{}
	for _, b := range env.State().Cluster.BMMs {
		label[b.NodeName] = ""
	}
	inv, err := model.LoadInventory(env.InvPath)
	require.NoError(t, err)
	initial := map[string]string{kcp: "kcp", spare: "kcp-spare"}
	for _, s := range inv.Servers() {
		if r, ok := initial[s.Server.Name]; ok {
			label[model.NodeNameOf(s.Server)] = r
		} else {
			label[model.NodeNameOf(s.Server)] = string(s.Server.Role)
		}
	}
	kcps := func() int {
		n := 0
		for _, r := range label {
			if r == "kcp" {
				n++
			}
		}
		return n
	}
	require.Equal(t, 1, kcps())
	sawFailedAsManagement := false
	for _, e := range evs {
		node, _ := e.Detail["node"].(string)
		if node == "" {
			node = e.BMM
		}
		switch e.Kind {
		case events.NodeLabel:
			ls, _ := e.Detail["labels"].(map[string]any)
			if r, ok := ls[model.LabelRole].(string); ok {
				label[node] = r
				if node == kcp && r == "management" {
					sawFailedAsManagement = true
				}
			}
		case events.NodeDeleted:
			delete(label, node)
		}
		require.GreaterOrEqual(t, kcps(), 1, "active control plane below its count at %v (%s %s)", e.Time, e.Kind, e.BMM)
	}
	require.True(t, sawFailedAsManagement, "the failed KCP's node was relabelled management")
	require.Equal(t, "kcp", label[spare], "the spare's node is labelled kcp")
	require.Equal(t, "kcp-spare", label[fs.NewSpare], "the new spare's node is labelled kcp-spare")
}

// (b) A compute node with a read-only root filesystem whose reprovision
// fails ends Unhealthy, removed from Kubernetes and powered off.
func TestE2ERemediationComputeReprovisionFails(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../../examples/two-rack.yaml", e2e.Options{Mutate: e2e.FastRemediation}).StartMonitor()
	const c = "rack1-c1"
	require.NoError(t, env.Lab.SetFault(c, "reimage-fails", 0, false))
	require.NoError(t, env.Lab.SetFault(c, "readonly-rootfs", 0, false))

	ctx := env.Context(2 * time.Minute)
	rs := env.Remediation(ctx, c)
	require.Contains(t, rs.Outcome, "reprovision failed; marked Unhealthy; powered off")
	b := env.BMM(c)
	require.Equal(t, model.UnhealthyMessage, b.DetailedStatusMessage)
	require.Equal(t, model.PowerOff, b.PowerState)
	require.Equal(t, "Off", env.Lab.Machine(c).BMC.State().Power)
	require.Empty(t, env.State().Leases)

	evs := env.Events()
	var kinds []string
	for _, e := range evs {
		if e.BMM == c && (e.Kind == events.ReimageFailed || e.Kind == events.NodeDeleted || e.Kind == events.PowerOff) {
			kinds = append(kinds, e.Kind)
		}
	}
	require.Equal(t, []string{events.ReimageFailed, events.NodeDeleted, events.PowerOff}, dedupe(kinds))
}

func dedupe(in []string) []string {
	var out []string
	for _, s := range in {
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}
