package deploy_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/keyset/keysettest"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/sitecheck"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/worker/wiring"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// With nothing but deploy/'s grants (the worker's ServiceAccount token,
// RBAC on): the BMM keysets reach every node of a one-rack lab site
// through keyset pods in rackroll-keysets; then delete is taken from
// keysets.yaml's Role: `site check` names it, and the next run's nodes
// are recorded failed saying which permission is missing and where it is
// granted.
func TestKeysetPodsNeedOnlyTheirRole(t *testing.T) {
	t.Parallel()
	var worker string
	env := e2e.Start(t, "../../examples/one-rack.yaml", e2e.Options{
		Mutate: func(inv *model.Inventory) { e2e.KeepComputes(inv, 2, nil) },
		StartWorker: func(e *e2e.Env) {
			applyDeploy(t, e.Lab.Kube)
			worker = workerKubeconfig(t, e.Lab.Kube, filepath.Join(e.Dir, "rackroll-worker.kubeconfig"))
			e.Inventory.Kubernetes = model.KubernetesSpec{Kubeconfig: worker}
			mc := clientOf(t, worker)
			e.StartWorker(&wiring.Options{PollInterval: 200 * time.Millisecond, BMCPowerOnTimeout: 15 * time.Second,
				Management: func() (kubernetes.Interface, error) { return mc, nil }})
		},
	})
	require.Equal(t, worker, env.State().Kubeconfig, "the ledger holds the worker's own kubeconfig")
	ctx := env.Context(3 * time.Minute)
	spec := keyset.Spec{Name: "oncall", Kind: keyset.KindBMM, PrivilegeLevel: keyset.Standard, Expiration: time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second),
		Users: []keyset.User{{Name: "alice", SSHPublicKey: keysettest.Line(1, "test")}, {Name: "bob", SSHPublicKey: keysettest.Line(2, "test")}}}
	machines := env.Lab.Machines()
	apply := func(update string) api.KeysetResult {
		t.Helper()
		var k keyset.Keyset
		require.NoError(t, env.Update(ctx, api.ClusterID(env.Cluster), update, &k, api.KeysetRequest{Keyset: spec}))
		id := api.KeysetNodesID(env.Cluster)
		_, err := env.Client.SignalWithStartWorkflow(ctx, id, api.SignalKeysetChanged, nil, client.StartWorkflowOptions{ID: id, TaskQueue: api.TaskQueue,
			WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE}, api.KeysetWorkflowName, api.KeysetInput{Cluster: env.Cluster, Nodes: true})
		require.NoError(t, err)
		// The run waits for the keyset's expiration once applied: its
		// outcomes are read in the ledger.
		return env.KeysetOutcomes(time.Minute, spec.Name)
	}

	res := apply(api.UpdateKeysetCreate)
	require.Equal(t, api.KeysetResult{Applied: len(machines)}, res)
	for _, m := range machines {
		node := env.Lab.Sim.NodeName(m.Name)
		var names []string
		for _, u := range env.Lab.Sim.NodeUsers(node) {
			names = append(names, u.Name)
		}
		require.Equal(t, []string{"alice", "bob"}, names, "node %s", node)
	}

	// Without delete on pods: each pod runs, and its node is failed with
	// the permission named; the pods are left (nothing may delete them).
	roles := env.Lab.Kube.Client().RbacV1().Roles(keyset.NodeNamespace)
	r, err := roles.Get(ctx, "rackroll-keysets", metav1.GetOptions{})
	require.NoError(t, err)
	r.Rules[0].Verbs = slices.DeleteFunc(r.Rules[0].Verbs, func(v string) bool { return v == "delete" })
	_, err = roles.Update(ctx, r, metav1.UpdateOptions{})
	require.NoError(t, err)
	cs := clientOf(t, worker)
	env.Eventually(30*time.Second, "site check sees delete pods denied", func() bool { return siteCheck(t, env, cs).Blockers() > 0 })
	var denied []sitecheck.Item
	for _, it := range siteCheck(t, env, cs).Kubernetes {
		if !it.OK {
			denied = append(denied, it)
		}
	}
	require.Len(t, denied, 1, "%+v", denied)
	require.Equal(t, "may delete pods in "+keyset.NodeNamespace, denied[0].Check)
	require.Contains(t, denied[0].Fix, "deploy/keysets.yaml's Role")
	spec.Users = spec.Users[:1]
	res = apply(api.UpdateKeysetUpdate)
	require.Equal(t, len(machines), res.Failed, "%+v", res)
	st := env.State()
	k, _ := keyset.Find(st.Keysets, "oncall")
	for _, o := range k.Outcomes {
		require.Equal(t, keyset.Failed, o.State)
		for _, want := range []string{"delete keyset pod rackroll-keysets/keyset-", `cannot delete resource "pods"`,
			"system:serviceaccount:rackroll:rackroll-worker", "deploy/keysets.yaml"} {
			require.Contains(t, o.Reason, want, "%s", o.BMM)
		}
	}
}
