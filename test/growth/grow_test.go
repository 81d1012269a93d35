package growth_test

import (
	"encoding/json"
	"fmt"
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

// Issue 50: a site grows by a rack while its API is probed. The new rack
// is delivered but not racked (lab.unracked); the operator racks it
// (`starter lab rack`), shows the plan (`cluster register --plan`:
// nothing changes), registers the grown inventory and runs `cluster
// replace-roles --wait`. At the end the roles are the table's for the new
// rack count, etcd's members are exactly the active KCPs, the API answered
// every probe and `starter lab check` finds nothing wrong.
//   - two racks → three: one KCP and a spare become three KCPs and a
//     spare (etcd from one voter to three);
//   - three → four: the spare moves to the new rack, new first;
//   - one → two: three KCPs in one rack become one KCP and a spare in the
//     other (members leave, the quorum kept at each step).
func TestE2ESiteGrowsByARack(t *testing.T) {
	for _, tc := range []struct {
		name       string
		racks      int      // of four-rack.yaml, the last one delivered unracked
		newServers []string // the new rack's servers (one compute kept a rack)
	}{
		{"two racks to three", 3, []string{"rack3-mgmt1", "rack3-mgmt2", "rack3-c1"}},
		{"three racks to four", 4, []string{"rack4-mgmt1", "rack4-mgmt2", "rack4-mgmt3", "rack4-c1"}},
		{"one rack to two", 2, []string{"rack2-mgmt1", "rack2-mgmt2", "rack2-c1"}},
	} {
		t.Run(tc.name, func(t *testing.T) { growByARack(t, tc.racks, tc.newServers) })
	}
}

func growByARack(t *testing.T, racks int, newServers []string) {
	last := fmt.Sprintf("rack%d", racks)
	env := e2e.Start(t, "../../examples/four-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		inv.Racks = inv.Racks[:racks]
		e2e.KeepComputes(inv, 1, nil)
		inv.Lab = []byte(`{"unracked": ["` + last + `"]}`)
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
	before := len(env.State().Cluster.BMMs)
	requireTable(t, env, racks-1)
	kc := env.Clientset(ctx)
	probe := startProbe(kc)

	grown := filepath.Join(env.Dir, "grown.yaml")
	out := run("lab", "rack", "--inventory", env.InvPath, "--rack", last, "--out-inventory", grown)
	require.Contains(t, out, newServers[0])
	for _, n := range newServers {
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
	require.Len(t, plan.Joins, len(newServers))
	require.NotEmpty(t, plan.Changes, "the control plane is re-placed by the table")
	require.Len(t, env.State().Cluster.BMMs, before, "--plan changes nothing")

	run("cluster", "register", "--inventory", grown)
	run("cluster", "replace-roles", "--cluster", env.Cluster, "--wait")

	probes, failures, firstErr := probe.Stop()
	t.Logf("API probes: %d, unanswered: %d; role changes planned: %v", probes, failures, plan.Changes)
	require.NotZero(t, probes)
	require.Zero(t, failures, "every API probe answered; the first failure: %v", firstErr)

	requireTable(t, env, racks)
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
