package growth_test

import (
	"context"
	"encoding/json"
	"fmt"
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
	g := rackAndRegister(t, racks, newServers)
	g.run("cluster", "replace-roles", "--cluster", g.env.Cluster, "--wait")
	g.atTheTable(t, racks)
	g.upgraded(t)
}

// upgraded: `cluster show` and `upgrade plan` show the grown site's
// control plane, and a runtime upgrade of it completes: every server on
// the target but the spare it retires, `starter lab check` clean.
func (g *growth) upgraded(t *testing.T) {
	cs := g.env.State()
	require.Contains(t, g.run("cluster", "show", "--cluster", g.env.Cluster), cs.ControlPlaneLine())
	plan := g.run("upgrade", "plan", "--cluster", g.env.Cluster, "--version", "4.2.0")
	for _, b := range cs.Cluster.BMMs {
		if b.HasRole(model.RoleKCP) {
			require.Contains(t, plan, b.Name, "the plan names the KCP %s", b.Name)
		}
	}
	st := g.env.Upgrade(g.ctx, "4.2.0")
	for _, b := range g.env.State().Cluster.BMMs {
		if !b.HasRole(model.RoleKCPSpare) {
			require.Equal(t, "4.2.0", b.RuntimeVersion, b.Name)
		}
	}
	require.Equal(t, model.ClusterRunning, st.DetailedStatus)
	g.run("lab", "check", "--events", g.env.EventsPath, "--inventory", g.env.InvPath)
}

// growth is a site whose last rack was racked and registered: what is left
// is the re-placement.
type growth struct {
	env     *e2e.Env
	ctx     context.Context
	starter string
	probe   *apiProbe
	plan    placement.Replan
	run     func(args ...string) string
}

// rackAndRegister starts the site of four-rack.yaml's first racks, the
// last of them delivered unracked, probes its API, racks that rack, shows
// the plan (nothing changes) and registers the grown inventory.
func rackAndRegister(t *testing.T, racks int, newServers []string) *growth {
	last := fmt.Sprintf("rack%d", racks)
	env := e2e.Start(t, "../../examples/four-rack.yaml", e2e.Options{Mutate: func(inv *model.Inventory) {
		inv.Racks = inv.Racks[:racks]
		e2e.KeepComputes(inv, 1, nil)
		inv.Lab = []byte(`{"unracked": ["` + last + `"]}`)
	}})
	g := &growth{env: env, ctx: env.Context(10 * time.Minute)}
	_, g.starter = e2e.Binaries(t, &commands)
	g.run = func(args ...string) string {
		t.Helper()
		out, errOut, code := env.Starter(&commands, 10*time.Minute, args...)
		require.Zero(t, code, "starter %s:\n%s%s", strings.Join(args, " "), out, errOut)
		return out + errOut
	}
	before := len(env.State().Cluster.BMMs)
	requireTable(t, env, racks-1)
	kc := env.Clientset(g.ctx)
	g.probe = startProbe(kc)

	grown := filepath.Join(env.Dir, "grown.yaml")
	out := g.run("lab", "rack", "--inventory", env.InvPath, "--rack", last, "--out-inventory", grown)
	require.Contains(t, out, newServers[0])
	for _, n := range newServers {
		env.Eventually(time.Minute, n+" registered and Ready", func() bool {
			node, err := kc.CoreV1().Nodes().Get(g.ctx, n, metav1.GetOptions{})
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
	require.NoError(t, json.Unmarshal([]byte(g.run("cluster", "register", "--inventory", grown, "--plan", "-o", "json")), &g.plan))
	require.Len(t, g.plan.Joins, len(newServers))
	require.NotEmpty(t, g.plan.Changes, "the control plane is re-placed by the table")
	require.Len(t, env.State().Cluster.BMMs, before, "--plan changes nothing")
	g.run("cluster", "register", "--inventory", grown)
	return g
}

// atTheTable: every probe answered, the roles the table's for racks,
// etcd's members the active KCPs, `starter lab check` clean.
func (g *growth) atTheTable(t *testing.T, racks int) {
	probes, failures, firstErr := g.probe.Stop()
	t.Logf("API probes: %d, unanswered: %d; role changes planned: %v", probes, failures, g.plan.Changes)
	require.NotZero(t, probes)
	require.Zero(t, failures, "every API probe answered; the first failure: %v", firstErr)
	requireTable(t, g.env, racks)
	g.env.RequireMembersAreActiveKCPs(g.ctx)
	g.run("lab", "check", "--events", g.env.EventsPath, "--inventory", g.env.InvPath)
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
