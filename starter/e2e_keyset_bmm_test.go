package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// A BMM keyset through the CLI on the dev server and the lab: created with
// two users, the nodes run puts both on every node of the site (read back
// from each simulated node: names, keyset, privilege, fingerprints, and
// the very key lines the pod carried), each node's outcome shown by
// `keyset show` and `cluster show`, no keyset pod left behind and no key
// in the run's history; deleted, the next run removes the users from
// every node. The lab's event log breaks no invariant.
func TestE2EBMMKeyset(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../examples/one-rack.yaml", e2e.Options{
		Mutate: func(inv *model.Inventory) { e2e.KeepComputes(inv, 2, nil) }, // five nodes: two waves of the run
	})
	ctx := env.Context(3 * time.Minute)
	keysetNamespace(t, ctx, env.Clientset(ctx))
	c := []string{"--address", env.Server.Address, "--cluster", env.Cluster}
	cli := func(args ...string) string {
		out, _, err := run(t, append(args, c...)...)
		require.NoError(t, err, "starter %s", strings.Join(args, " "))
		return out
	}
	// A real ECDSA key (ssh-keygen), beside the ed25519 one.
	second := "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBCt/xlsHfKpnOyadrs2xcFOfdbd7e+e8ATW9WSEAoZEGI7vGQEPtO0JrK7i3b4TpBJ9YLWgcX7f5S/g0DNheA6U= bob@test"
	bobKey, err := keyset.ParsePublicKey(second)
	require.NoError(t, err)
	spec := keyset.Spec{Name: "oncall", Kind: keyset.KindBMM, PrivilegeLevel: keyset.Superuser, Expiration: time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second),
		Users: []keyset.User{{Name: "alice", SSHPublicKey: testPublicKey}, {Name: "bob", SSHPublicKey: second}}}
	id := api.KeysetNodesID(env.Cluster)
	awaitRun := func(want func(api.KeysetResult) bool) {
		t.Helper()
		var res api.KeysetResult
		require.NoError(t, env.Client.GetWorkflow(ctx, id, "").Get(ctx, &res))
		require.True(t, want(res), "run result %+v", res)
	}
	machines := env.Lab.Machines()
	bmms := len(machines)

	require.Contains(t, cli("keyset", "create", "--file", keysetYAML(t, spec)), "every node of "+env.Cluster+": workflow "+id)
	// The run waits for the keyset's expiration once applied: its
	// outcomes are read in the ledger. With no BMM keyset left it ends.
	res := env.KeysetOutcomes(time.Minute, spec.Name)
	require.True(t, res.Applied == bmms && res.Failed == 0, "outcomes %+v", res)
	for _, m := range machines {
		node := env.Lab.Sim.NodeName(m.Name)
		require.Equal(t, []keyset.Fingerprinted{
			{Name: "alice", Keyset: "oncall", Privilege: keyset.Superuser, Fingerprint: testFingerprint},
			{Name: "bob", Keyset: "oncall", Privilege: keyset.Superuser, Fingerprint: bobKey.Fingerprint},
		}, env.Lab.Sim.NodeUsers(node), "the users node %s holds", node)
		given := env.Lab.Sim.NodeKeysGiven(node)
		require.NotNil(t, given, "node %s was given no keys", node)
		require.Equal(t, []string{testPublicKey, second}, []string{given.Users[0].Key, given.Users[1].Key}, "node %s", node)
	}
	var v keysetView
	require.NoError(t, json.Unmarshal([]byte(cli("keyset", "show", "--name", spec.Name, "-o", "json")), &v))
	require.Len(t, v.Nodes, bmms)
	for _, o := range v.Nodes {
		require.Equal(t, keyset.Applied, o.State, "%+v", o)
	}
	require.Contains(t, cli("keyset", "show", "--name", spec.Name), "applied on 5 of 5 nodes")
	require.Contains(t, cli("cluster", "show"), "oncall (bmm superuser, 2, active, applied on 5 of 5 nodes)")
	pods, err := env.Clientset(ctx).CoreV1().Pods(keyset.NodeNamespace).List(ctx, metav1.ListOptions{LabelSelector: keyset.NodePodLabel})
	require.NoError(t, err)
	require.Empty(t, pods.Items, "keyset pods left behind")
	h := historyText(t, env, id)
	for _, k := range []string{testPublicKey, second} {
		require.NotContains(t, h, strings.Fields(k)[1][20:], "a key in the nodes run's history")
	}

	require.Contains(t, cli("keyset", "delete", "--name", spec.Name), "workflow "+id)
	awaitRun(func(r api.KeysetResult) bool { return r.Applied == bmms && r.Failed == 0 })
	for _, m := range machines {
		node := env.Lab.Sim.NodeName(m.Name)
		require.Empty(t, env.Lab.Sim.NodeUsers(node), "node %s still holds users after the delete", node)
	}

	evs, err := events.ReadFile(env.EventsPath)
	require.NoError(t, err)
	site, err := invariants.SiteFromInventory(env.Inventory)
	require.NoError(t, err)
	require.Empty(t, invariants.Check(evs, site), "starter lab check finds nothing wrong")
}

// keysetNamespace makes deploy/keysets.yaml's namespace, as `kubectl apply
// -k deploy/` does on a site.
func keysetNamespace(t *testing.T, ctx context.Context, kc kubernetes.Interface) {
	t.Helper()
	b, err := os.ReadFile("../deploy/keysets.yaml")
	require.NoError(t, err)
	var ns corev1.Namespace
	require.NoError(t, yaml.Unmarshal([]byte(strings.Split(string(b), "\n---\n")[0]), &ns))
	require.Equal(t, keyset.NodeNamespace, ns.Name)
	if _, err := kc.CoreV1().Namespaces().Create(ctx, &ns, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
}
