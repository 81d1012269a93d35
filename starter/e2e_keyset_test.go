package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/test/e2e"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"sigs.k8s.io/yaml"
)

// The keyset round trip through the CLI on the dev server and the lab:
// create a BMM and a BMC keyset, refusals by the ledger (a name taken, a
// user another keyset has) that write nothing, list and show with
// fingerprints, update, delete. No output carries a key; the ledger's
// Temporal history is the one place the public keys are.
func TestE2EKeysets(t *testing.T) {
	t.Parallel()
	env := e2e.Start(t, "../examples/one-rack.yaml", e2e.Options{})
	cli := func(args ...string) (string, error) {
		out, _, err := run(t, append([]string{"--address", env.Server.Address}, args...)...)
		return out, err
	}
	// A real ECDSA key (ssh-keygen), beside the ed25519 one.
	second := "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBCt/xlsHfKpnOyadrs2xcFOfdbd7e+e8ATW9WSEAoZEGI7vGQEPtO0JrK7i3b4TpBJ9YLWgcX7f5S/g0DNheA6U= bob@test"
	bob, err := keyset.ParsePublicKey(second)
	require.NoError(t, err)
	expires := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	bmm := keyset.Spec{Name: "oncall", Kind: keyset.KindBMM, PrivilegeLevel: keyset.Superuser, Expiration: expires, Description: "on-call SREs",
		Users: []keyset.User{{Name: "alice", SSHPublicKey: testPublicKey}, {Name: "bob", SSHPublicKey: second}}}
	bmc := keyset.Spec{Name: "bmc-oncall", Kind: keyset.KindBMC, Role: keyset.Operator, Expiration: expires,
		Accounts: []keyset.Account{{Name: "alice", PasswordSecretRef: keyset.SecretRef{Namespace: "rackroll", Name: "bmc-alice", Key: "password"}}}}
	file := func(s keyset.Spec) string {
		b, err := yaml.Marshal(s)
		require.NoError(t, err)
		p := filepath.Join(t.TempDir(), s.Name+".yaml")
		require.NoError(t, os.WriteFile(p, b, 0o600))
		return p
	}
	var printed strings.Builder
	ok := func(args ...string) string {
		out, err := cli(args...)
		require.NoError(t, err, "starter %s", strings.Join(args, " "))
		printed.WriteString(out)
		return out
	}
	refused := func(want string, args ...string) {
		_, err := cli(args...)
		require.ErrorContains(t, err, want)
		var ce *codedError
		require.True(t, errors.As(err, &ce) && ce.code == exitError, "%v", err)
		printed.WriteString(err.Error())
	}
	c := []string{"--cluster", env.Cluster}

	out := ok(append([]string{"keyset", "create", "--file", file(bmm)}, c...)...)
	require.Contains(t, out, testFingerprint)
	require.Contains(t, out, bob.Fingerprint)
	ok(append([]string{"keyset", "create", "--file", file(bmc)}, c...)...)

	refused("create of keyset oncall refused: name: \"oncall\" — a keyset of that name exists", append([]string{"keyset", "create", "--file", file(bmm)}, c...)...)
	taken := bmm
	taken.Name, taken.Users = "night", bmm.Users[:1]
	refused(`users[0].name: "alice" — already a user of bmm keyset oncall`, append([]string{"keyset", "create", "--file", file(taken)}, c...)...)
	refused(`no keyset of that name (the cluster has bmc-oncall, oncall)`, append([]string{"keyset", "delete", "--name", "night"}, c...)...)

	var list []keyset.Keyset
	require.NoError(t, json.Unmarshal([]byte(ok(append([]string{"keyset", "list", "-o", "json"}, c...)...)), &list))
	require.Equal(t, []string{"bmc-oncall", "oncall"}, []string{list[0].Name, list[1].Name}, "the refusals wrote nothing")
	table := ok(append([]string{"keyset", "list"}, c...)...)
	require.Contains(t, table, "oncall")
	require.Contains(t, table, "superuser")
	require.Regexp(t, `active, 4[78]h[0-9]+m0s left`, table)

	var shown keyset.Keyset
	require.NoError(t, json.Unmarshal([]byte(ok(append([]string{"keyset", "show", "--name", "oncall", "-o", "json"}, c...)...)), &shown))
	require.Equal(t, []string{testFingerprint, bob.Fingerprint}, []string{shown.Users[0].Fingerprint, shown.Users[1].Fingerprint})
	require.True(t, shown.Expiration.Equal(expires))
	require.Equal(t, operator(), shown.By)
	table = ok(append([]string{"keyset", "show", "--name", "bmc-oncall"}, c...)...)
	require.Contains(t, table, "rackroll/bmc-alice key password")

	up := bmm
	up.PrivilegeLevel, up.Users = keyset.Standard, bmm.Users[1:]
	ok(append([]string{"keyset", "update", "--file", file(up)}, c...)...)
	require.NoError(t, json.Unmarshal([]byte(ok(append([]string{"keyset", "show", "--name", "oncall", "-o", "json"}, c...)...)), &shown))
	require.Equal(t, keyset.Standard, shown.PrivilegeLevel)
	require.Equal(t, []string{"bob"}, shown.Members())
	ok(append([]string{"keyset", "delete", "--name", "bmc-oncall"}, c...)...)
	require.NoError(t, json.Unmarshal([]byte(ok(append([]string{"keyset", "list", "-o", "json"}, c...)...)), &list))
	require.Len(t, list, 1)
	ok(append([]string{"cluster", "show", "-o", "json"}, c...)...)
	// Its nodes run is at work (starter/e2e_keyset_bmm_test.go follows it
	// to the end): how many nodes it has reached is not the point here.
	require.Regexp(t, `keysets: oncall \(bmm standard, 1, active, applied on [0-9] of [0-9] nodes[^)]*\)`, ok(append([]string{"cluster", "show"}, c...)...))

	// The key blobs: nowhere in what the CLI printed; in the ledger's
	// own history only (the Updates' input and its state).
	for _, k := range []string{testPublicKey, second} {
		blob := strings.Fields(k)[1]
		require.NotContains(t, printed.String(), blob[20:])
		require.Contains(t, ledgerHistory(t, env), blob[20:])
	}
	require.Contains(t, printed.String(), bob.Fingerprint, "the scan read real output")
	// With RACKROLL_RECORD_HISTORIES set, the ledger's history with its
	// keyset Updates is recorded for the replay tests.
	env.RecordHistoriesAs("keysets", api.ClusterID(env.Cluster))
}

// ledgerHistory is the ledger's Temporal history, every event's payloads
// as text.
func ledgerHistory(t *testing.T, env *e2e.Env) string {
	t.Helper()
	var b strings.Builder
	it := env.Client.GetWorkflowHistory(env.Context(time.Minute), api.ClusterID(env.Cluster), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		b.WriteString(ev.String())
	}
	return b.String()
}
