package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/invariants"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lab/events"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/rackroll/rackroll/worker/wiring"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// A BMC keyset through the CLI on the dev server and the lab: created, its
// accounts are made on every BMC of the site (read back from each lab BMC
// with the keyset's role and the Secret's password; one BMC slot-based,
// idrac9), each BMM's outcome shown by `keyset show`; updated to another
// role, every BMC follows; deleted, every account is removed (its idrac9
// slot emptied, deleted elsewhere) and the ledger says where. The passwords are in no workflow history, and the
// lab's event log breaks no invariant.
func TestE2EBMCKeyset(t *testing.T) {
	t.Parallel()
	pass := bmcPasswords
	env := e2e.Start(t, "../examples/one-rack.yaml", e2e.Options{
		Mutate: func(inv *model.Inventory) {
			e2e.KeepComputes(inv, 2, nil) // five BMCs: two waves of the run
			inv.Lab = []byte(`{"bmcProfiles": {"rack1-mgmt1": "idrac9", "rack1-mgmt2": "ilo5"}}`)
		},
		StartWorker: withSecrets(t, pass),
	})
	ctx := env.Context(3 * time.Minute)
	c := []string{"--address", env.Server.Address, "--cluster", env.Cluster}
	cli := func(args ...string) string {
		out, _, err := run(t, append(args, c...)...)
		require.NoError(t, err, "starter %s", strings.Join(args, " "))
		return out
	}
	spec := bmcOncall()
	id := api.KeysetID(env.Cluster, spec.Name)
	// A live keyset's run waits for its expiration once applied: its
	// outcomes are read in the ledger. A deleted one's run ends.
	awaitApplied := func(want func(api.KeysetResult) bool) {
		res := env.KeysetOutcomes(time.Minute, spec.Name)
		require.True(t, want(res), "outcomes %+v", res)
	}
	awaitRun := func(want func(api.KeysetResult) bool) api.KeysetResult {
		var res api.KeysetResult
		require.NoError(t, env.Client.GetWorkflow(ctx, id, "").Get(ctx, &res))
		require.True(t, want(res), "run result %+v", res)
		return res
	}
	bmms := len(env.Lab.Machines())
	onEveryBMC := func(role string, enabled bool) {
		t.Helper()
		for _, m := range env.Lab.Machines() {
			for user := range pass {
				found := false
				for _, a := range m.BMC.Accounts() {
					if a.UserName == user {
						found = true
						require.Equal(t, enabled, a.Enabled, "%s (%s): account %s enabled", m.Name, m.Profile, user)
						require.Equal(t, role, a.RoleID, "%s (%s): account %s role", m.Name, m.Profile, user)
					}
				}
				require.True(t, found, "%s (%s): no account %s", m.Name, m.Profile, user)
				require.True(t, m.BMC.AccountPasswordIs(user, pass[user]), "%s: %s has the Secret's password", m.Name, user)
			}
		}
	}
	show := func() keysetView {
		var v keysetView
		require.NoError(t, json.Unmarshal([]byte(cli("keyset", "show", "--name", spec.Name, "-o", "json")), &v))
		require.Len(t, v.BMCs, bmms)
		return v
	}

	require.Contains(t, cli("keyset", "create", "--file", keysetYAML(t, spec)), "applying to every BMC of "+env.Cluster+": workflow "+id)
	awaitApplied(func(r api.KeysetResult) bool { return r.Applied == bmms && r.Failed == 0 })
	onEveryBMC("Operator", true)
	for _, o := range show().BMCs {
		require.Equal(t, keyset.Applied, o.State, "%+v", o)
		require.Equal(t, keyset.Operator, o.Role)
	}
	require.Contains(t, cli("keyset", "show", "--name", spec.Name), "applied on 5 of 5 BMCs")

	up := spec
	up.Role = keyset.ReadOnly
	cli("keyset", "update", "--file", keysetYAML(t, up))
	awaitApplied(func(r api.KeysetResult) bool { return r.Applied == bmms })
	onEveryBMC("ReadOnly", true)
	require.Contains(t, cli("cluster", "show"), "bmc-oncall (bmc ReadOnly, 2, active, applied on 5 of 5 BMCs)")

	require.Contains(t, cli("keyset", "delete", "--name", spec.Name), "workflow "+id)
	awaitRun(func(r api.KeysetResult) bool { return r.Disabled == bmms && r.Failed == 0 })
	for _, m := range env.Lab.Machines() {
		for _, a := range m.BMC.Accounts() {
			_, ours := pass[a.UserName]
			require.False(t, ours, "%s (%s): account %s left after the keyset's deletion", m.Name, m.Profile, a.UserName)
		}
	}
	v := show()
	require.True(t, v.Deleted)
	for _, o := range v.BMCs {
		require.Equal(t, keyset.Removed, o.State, "%+v: every lab profile removes an account (slot emptied or deleted)", o)
	}
	require.Contains(t, cli("keyset", "show", "--name", spec.Name), "removed from 5 of 5 BMCs")

	// No password in the history of the last run nor of the ledger.
	for _, wf := range []string{id, api.ClusterID(env.Cluster)} {
		h := historyText(t, env, wf)
		for _, p := range pass {
			require.NotContains(t, h, p, "history of %s", wf)
		}
	}
	evs, err := events.ReadFile(env.EventsPath)
	require.NoError(t, err)
	site, err := invariants.SiteFromInventory(env.Inventory)
	require.NoError(t, err)
	require.Empty(t, invariants.Check(evs, site), "starter lab check finds nothing wrong")
}

// bmcPasswords are the passwords of the BMC keyset tests' accounts, each
// a Secret rackroll/bmc-<user> (putSecrets).
var bmcPasswords = map[string]string{"alice": "Alice-lab-pass-1", "bob": "Bob-lab-pass-22"}

// bmcOncall is a BMC keyset of alice and bob, Operators for 48 hours,
// their passwords those Secrets.
func bmcOncall() keyset.Spec {
	return keyset.Spec{Name: "bmc-oncall", Kind: keyset.KindBMC, Role: keyset.Operator, Expiration: time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second),
		Accounts: []keyset.Account{
			{Name: "alice", PasswordSecretRef: keyset.SecretRef{Namespace: "rackroll", Name: "bmc-alice", Key: "password"}},
			{Name: "bob", PasswordSecretRef: keyset.SecretRef{Namespace: "rackroll", Name: "bmc-bob", Key: "password"}},
		}}
}

// withSecrets starts the site's worker once pass are Secrets of the
// cluster it runs in, which it reads with its own client (here the lab's
// apiserver).
func withSecrets(t *testing.T, pass map[string]string) func(*e2e.Env) {
	return func(e *e2e.Env) {
		kc := e.Clientset(e.Context(time.Minute))
		putSecrets(t, e.Context(time.Minute), kc, pass)
		e.StartWorker(&wiring.Options{PollInterval: 200 * time.Millisecond, BMCPowerOnTimeout: 15 * time.Second,
			Management: func() (kubernetes.Interface, error) { return kc, nil }})
	}
}

// putSecrets makes one Secret rackroll/bmc-<user> per password.
func putSecrets(t *testing.T, ctx context.Context, kc kubernetes.Interface, pass map[string]string) {
	t.Helper()
	_, err := kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "rackroll"}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	for user, p := range pass {
		_, err := kc.CoreV1().Secrets("rackroll").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "bmc-" + user},
			Data: map[string][]byte{"password": []byte(p)}}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
}

// historyText is a workflow's Temporal history (its id's last run),
// every event's payloads as text.
func historyText(t *testing.T, env *e2e.Env, id string) string {
	t.Helper()
	var b strings.Builder
	it := env.Client.GetWorkflowHistory(env.Context(time.Minute), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		b.WriteString(ev.String())
	}
	return b.String()
}

// keysetYAML writes s as a keyset file.
func keysetYAML(t *testing.T, s keyset.Spec) string {
	t.Helper()
	b, err := yaml.Marshal(s)
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), s.Name+".yaml")
	require.NoError(t, os.WriteFile(p, b, 0o600))
	return p
}
