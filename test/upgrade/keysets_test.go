package upgrade_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/test/e2e"
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
	aliceKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINW12kiolEnIOdh/vwVxUEvbtwtyUIeSDH4au8ew7buf ed25519@test"
	bobKey   = "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBCt/xlsHfKpnOyadrs2xcFOfdbd7e+e8ATW9WSEAoZEGI7vGQEPtO0JrK7i3b4TpBJ9YLWgcX7f5S/g0DNheA6U= bob@test"
)

// keysOnEveryNode creates a BMM keyset of two users as `starter keyset
// create` does (the ledger's Update, then the cluster's nodes run) in the
// namespace deploy/keysets.yaml makes, and waits until every node of the
// lab holds both users.
func keysOnEveryNode(t *testing.T, ctx context.Context, env *e2e.Env) {
	t.Helper()
	b, err := os.ReadFile("../../deploy/keysets.yaml")
	require.NoError(t, err)
	var ns corev1.Namespace
	require.NoError(t, yaml.Unmarshal([]byte(strings.Split(string(b), "\n---\n")[0]), &ns))
	if _, err := env.Clientset(ctx).CoreV1().Namespaces().Create(ctx, &ns, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	spec := keyset.Spec{Name: "oncall", Kind: keyset.KindBMM, PrivilegeLevel: keyset.Standard,
		Expiration: time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second),
		Users:      []keyset.User{{Name: "alice", SSHPublicKey: aliceKey}, {Name: "bob", SSHPublicKey: bobKey}}}
	var k keyset.Keyset
	require.NoError(t, env.Update(ctx, api.ClusterID(env.Cluster), api.UpdateKeysetCreate, &k, api.KeysetRequest{Keyset: spec, By: "test"}))
	id := api.KeysetNodesID(env.Cluster)
	_, err = env.Client.SignalWithStartWorkflow(ctx, id, api.SignalKeysetChanged, nil, client.StartWorkflowOptions{
		ID: id, TaskQueue: api.TaskQueue, WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}, api.KeysetWorkflowName, api.KeysetInput{Cluster: env.Cluster, Nodes: true})
	require.NoError(t, err)
	env.Eventually(3*time.Minute, "both users on every node", func() bool { return holdBoth(env, nil) })
}

// holdBoth: every node (of names, nil for all) holds the two users.
func holdBoth(env *e2e.Env, names []string) bool {
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

// requireKeysReestablished (issue 37): after the upgrade the users are
// back on every reinstalled server (the lab's node forgot them with its
// OS), and every keyset pod of the upgrade's time ran after its last
// reinstall: re-established once the upgrade completed, as the operator
// documents say, not rack by rack.
func requireKeysReestablished(t *testing.T, env *e2e.Env, st api.UpgradeStatus, evs []events.Event) {
	t.Helper()
	require.Contains(t, st.KeysNote, api.KeysetNodesID(env.Cluster))
	var reinstalled []string
	for name, n := range env.Lab.ReimageCounts() {
		if n > 0 {
			reinstalled = append(reinstalled, name)
		}
	}
	// The lab logs a keyset pod once the pod's status is written, a moment
	// after the node holds its users: wait for both (make test-profile on
	// dbddf21 counted 40 of 41 pods in between).
	podsAfter := func() (pods []events.Event) {
		for _, e := range env.Events() {
			if e.Kind == events.KeysetPod && e.Time.After(st.StartedAt) {
				pods = append(pods, e)
			}
		}
		return pods
	}
	env.Eventually(3*time.Minute, "both users back on every reinstalled server, each by a keyset pod", func() bool {
		return holdBoth(env, reinstalled) && len(podsAfter()) >= len(reinstalled)
	})
	var last time.Time
	for _, e := range evs {
		if e.Kind == events.ReimageDone {
			last = e.Time
		}
	}
	pods := podsAfter()
	for _, e := range pods {
		require.True(t, e.Time.After(last), "keyset pod on %s at %s, before the last reinstall at %s", e.BMM, e.Time, last)
	}
	require.GreaterOrEqual(t, len(pods), len(reinstalled), "a keyset pod on every reinstalled server after the upgrade")
}
