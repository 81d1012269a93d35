package e2e

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Two users' public keys (ssh-keygen), for a BMM keyset.
const (
	AliceKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINW12kiolEnIOdh/vwVxUEvbtwtyUIeSDH4au8ew7buf ed25519@test"
	BobKey   = "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBCt/xlsHfKpnOyadrs2xcFOfdbd7e+e8ATW9WSEAoZEGI7vGQEPtO0JrK7i3b4TpBJ9YLWgcX7f5S/g0DNheA6U= bob@test"
)

// KeysOnEveryNode creates a BMM keyset of two users as `starter keyset
// create` does (the ledger's Update, then the cluster's nodes run) in the
// namespace deploy/keysets.yaml makes, and waits until every node of the
// lab holds both users.
func (env *Env) KeysOnEveryNode(ctx context.Context) {
	t := env.T
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), "deploy", "keysets.yaml"))
	require.NoError(t, err)
	var ns corev1.Namespace
	require.NoError(t, yaml.Unmarshal([]byte(strings.Split(string(b), "\n---\n")[0]), &ns))
	if _, err := env.Clientset(ctx).CoreV1().Namespaces().Create(ctx, &ns, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	spec := keyset.Spec{Name: "oncall", Kind: keyset.KindBMM, PrivilegeLevel: keyset.Standard,
		Expiration: time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second),
		Users:      []keyset.User{{Name: "alice", SSHPublicKey: AliceKey}, {Name: "bob", SSHPublicKey: BobKey}}}
	var k keyset.Keyset
	require.NoError(t, env.Update(ctx, api.ClusterID(env.Cluster), api.UpdateKeysetCreate, &k, api.KeysetRequest{Keyset: spec, By: "test"}))
	id := api.KeysetNodesID(env.Cluster)
	_, err = env.Client.SignalWithStartWorkflow(ctx, id, api.SignalKeysetChanged, nil, client.StartWorkflowOptions{
		ID: id, TaskQueue: api.TaskQueue, WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}, api.KeysetWorkflowName, api.KeysetInput{Cluster: env.Cluster, Nodes: true})
	require.NoError(t, err)
	// The lab logs a keyset pod a moment after its node holds the users:
	// wait for the pods too, so that none is logged after what follows.
	env.Eventually(3*time.Minute, "both users on every node, each by a logged keyset pod", func() bool {
		return env.HoldBoth(nil) && env.keysetPodOnEveryNode()
	})
}

// keysetPodOnEveryNode: the lab logged a keyset pod on every machine.
func (env *Env) keysetPodOnEveryNode() bool {
	logged := map[string]bool{}
	for _, e := range env.Events() {
		if e.Kind == events.KeysetPod {
			logged[e.BMM] = true
		}
	}
	for _, m := range env.Lab.Machines() {
		if !logged[m.Name] {
			return false
		}
	}
	return true
}

// HoldBoth: every node (of names, nil for all) holds the two users.
func (env *Env) HoldBoth(names []string) bool {
	if names == nil {
		for _, m := range env.Lab.Machines() {
			names = append(names, m.Name)
		}
	}
	for _, n := range names {
		if len(env.Lab.Sim.NodeUsers(env.Lab.Sim.NodeName(n))) != 2 {
			return false
		}
	}
	return true
}

// repoRoot is the checkout this package is in.
func repoRoot() string {
	_, self, _, _ := runtime.Caller(0) // test/e2e/keys_nodes.go
	return filepath.Join(filepath.Dir(self), "..", "..")
}
