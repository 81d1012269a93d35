package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/worker/wiring"
	"github.com/stretchr/testify/require"
)

// A worker outside any pod, given a kubeconfig (the worker's --kubeconfig,
// kube.FindManagement as worker/main.go calls it), reads a BMC keyset's
// password Secret from that cluster and applies the keyset on every BMC
// (docs/install.md#a-worker-outside-a-pod). The explicit path is what the
// test hands over: the caller's $KUBECONFIG, home or pod decide nothing.
func TestE2EBMCKeysetFromAWorkerWithAKubeconfig(t *testing.T) {
	t.Parallel()
	pass := map[string]string{"alice": "Alice-kubeconfig-pass-3"}
	var from string
	env := e2e.Start(t, "../examples/one-rack.yaml", e2e.Options{
		Mutate: func(inv *model.Inventory) { e2e.KeepComputes(inv, 1, nil) },
		StartWorker: func(e *e2e.Env) {
			putSecrets(t, e.Context(time.Minute), e.Clientset(e.Context(time.Minute)), pass)
			m, err := kube.FindManagement(e.Lab.Kube.Kubeconfig())
			require.NoError(t, err)
			require.NotNil(t, m.Source, "a kubeconfig named is a management cluster")
			from = m.From
			e.StartWorker(&wiring.Options{PollInterval: 200 * time.Millisecond, BMCPowerOnTimeout: 15 * time.Second, Management: m.Clientset()})
		},
	})
	require.Contains(t, from, "(--kubeconfig)")
	spec := keyset.Spec{Name: "bmc-jump", Kind: keyset.KindBMC, Role: keyset.Operator, Expiration: time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second),
		Accounts: []keyset.Account{{Name: "alice", PasswordSecretRef: keyset.SecretRef{Namespace: "rackroll", Name: "bmc-alice", Key: "password"}}}}
	out, _, err := run(t, "keyset", "create", "--file", keysetYAML(t, spec), "--address", env.Server.Address, "--cluster", env.Cluster)
	require.NoError(t, err, out)
	require.Contains(t, out, api.KeysetID(env.Cluster, spec.Name))
	bmms := len(env.Lab.Machines())
	res := env.KeysetOutcomes(2*time.Minute, spec.Name)
	require.True(t, res.Applied == bmms && res.Failed == 0, "outcomes %+v", res)
	for _, m := range env.Lab.Machines() {
		require.True(t, m.BMC.AccountPasswordIs("alice", pass["alice"]), "%s: alice has the Secret's password", m.Name)
	}
	require.False(t, strings.Contains(out, pass["alice"]), "the password in the starter's output")
}
