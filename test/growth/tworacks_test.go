package growth_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/placement"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Issue 50: a two-rack site (one KCP, a spare) grows to three racks while
// its API is probed. The third rack is delivered but not racked
// (lab.unracked); the operator racks it (`starter lab rack`), shows the
// plan (`cluster register --plan`: nothing changes), registers the grown
// inventory and runs `cluster replace-roles --wait`. At the end the roles
// are the table's for three racks, etcd's members are exactly the active
// KCPs (one voter became three), the API answered every probe and
// `starter lab check` finds nothing wrong.
func TestE2ETwoRacksGrowToThree(t *testing.T) {
	env := e2e.Start(t, "../../examples/four-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		inv.Racks = inv.Racks[:3]
		e2e.KeepComputes(inv, 1, nil)
		inv.Lab = []byte(`{"unracked": ["rack3"]}`)
	}})
	ctx := env.Context(10 * time.Minute)
	_, starter := e2e.Binaries(t, &commands)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, starter, append(args, "--address", env.Server.Address)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "starter %s:\n%s", strings.Join(args, " "), out)
		return string(out)
	}
	require.Len(t, env.State().Cluster.BMMs, 7, "the ledger holds the two racked racks")
	kc := env.Clientset(ctx)
	probe := startProbe(kc)

	grown := filepath.Join(env.Dir, "grown.yaml")
	out := run("lab", "rack", "--inventory", env.InvPath, "--rack", "rack3", "--out-inventory", grown)
	require.Contains(t, out, "rack3-mgmt1")
	for _, n := range []string{"rack3-mgmt1", "rack3-mgmt2", "rack3-c1"} {
		env.Eventually(time.Minute, n+" registered and Ready", func() bool {
			node, err := kc.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				return false
			}
			for _, c := range node.Status.Conditions {
				if c.Type == corev1.NodeReady {
					return c.Status == corev1.ConditionTrue
				}
			}
			return false
		})
	}

	var plan placement.Replan
	require.NoError(t, json.Unmarshal([]byte(run("cluster", "register", "--inventory", grown, "--plan", "-o", "json")), &plan))
	require.Len(t, plan.Joins, 3)
	require.Len(t, plan.Changes, 2, "two KCPs added: %+v", plan.Changes)
	for _, c := range plan.Changes {
		require.Equal(t, model.RoleKCP, c.To, c.String())
	}
	require.Len(t, env.State().Cluster.BMMs, 7, "--plan changes nothing")

	run("cluster", "register", "--inventory", grown)
	run("cluster", "replace-roles", "--cluster", env.Cluster, "--wait")

	probes, failures, firstErr := probe.Stop()
	t.Logf("API probes: %d, unanswered: %d", probes, failures)
	require.NotZero(t, probes)
	require.Zero(t, failures, "every API probe answered; the first failure: %v", firstErr)

	requireTable(t, env, 3)
	env.RequireMembersAreActiveKCPs(ctx)
	run("lab", "check", "--events", env.EventsPath, "--inventory", env.InvPath)
}

// requireTable checks the ledger's roles against the placement table for
// racks: the active KCPs and spares it wants, the KCPs in different racks
// from three racks on, the spare outside their racks when one is left.
func requireTable(t *testing.T, env *e2e.Env, racks int) {
	t.Helper()
	active, spare := model.ControlPlaneSize(racks)
	kcpRacks, spareRacks := map[string]bool{}, []string{}
	seen := map[string]bool{}
	for _, b := range env.State().Cluster.BMMs {
		seen[b.Rack] = true
		switch {
		case b.HasRole(model.RoleKCP):
			kcpRacks[b.Rack] = true
			active--
		case b.HasRole(model.RoleKCPSpare):
			spareRacks = append(spareRacks, b.Rack)
			spare--
		}
	}
	require.Len(t, seen, racks)
	require.Zero(t, active, "active KCPs as the table wants")
	require.Zero(t, spare, "spares as the table wants")
	if racks >= 3 {
		want, _ := model.ControlPlaneSize(racks)
		require.Len(t, kcpRacks, want, "one KCP per rack")
	}
	if len(seen) > len(kcpRacks) {
		for _, r := range spareRacks {
			require.False(t, kcpRacks[r], "the spare in rack %s, outside the KCPs' racks", r)
		}
	}
}
