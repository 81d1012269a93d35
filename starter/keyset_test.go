package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/spf13/cobra"
)

// testPublicKey is a real ed25519 public key (ssh-keygen) and what
// `ssh-keygen -l -E sha256` prints for it.
const (
	testPublicKey   = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINW12kiolEnIOdh/vwVxUEvbtwtyUIeSDH4au8ew7buf ed25519@test"
	testFingerprint = "SHA256:Tp3kfgOmRWDMYjtoXsb6xNWUYcMkHJDvVApcxV1TE5I"
)

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "keyset.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// mustView is keyset name of st as `keyset show` finds it, live or deleted.
func mustView(t *testing.T, st api.ClusterState, name string) keysetView {
	t.Helper()
	v, ok := viewOf(st, name)
	if !ok {
		t.Fatalf("%s not found", name)
	}
	return v
}

// shown is what `keyset show` writes of v in format.
func shown(t *testing.T, v keysetView, format string, now time.Time) string {
	t.Helper()
	var out bytes.Buffer
	cmd := &cobra.Command{}
	cmd.SetOut(&out)
	if err := writeKeyset(cmd, format, v, now); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// A keyset file with problems is refused before anything connects
// (--address is a closed port), exit 1, every problem named, and no
// secret-looking value repeated.
func TestKeysetBadInputCLI(t *testing.T) {
	bad := writeFile(t, `name: oncall
kind: bmm
privilegeLevel: admin
expiration: 2020-01-01T00:00:00Z
users:
  - name: alice
    sshPublicKey: "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjE"
  - name: alice
    sshPublicKey: P4ssw0rd-not-a-key
`)
	bmc := writeFile(t, `name: bmc
kind: bmc
role: Operator
expiration: 2099-01-01T00:00:00Z
accounts:
  - name: ops
    password: Sup3rSecret!
    passwordSecretRef: {namespace: rackroll, name: "Sup3rSecret!", key: password}
`)
	addr := []string{"--address", "127.0.0.1:1"}
	for _, tc := range []struct {
		name   string
		args   []string
		want   []string
		secret string
	}{
		{"bmm file", append([]string{"keyset", "create", "--cluster", "lab-two", "--file", bad}, addr...),
			[]string{`privilegeLevel: "admin" — allowed: standard, superuser`, "expiration", "in the past", "users[0].sshPublicKey", "this is a private key",
				"users[1].name", "duplicate", "users[1].sshPublicKey"}, "b3BlbnNza"},
		{"bmm file on update", append([]string{"keyset", "update", "--cluster", "lab-two", "--file", bad}, addr...),
			[]string{"privilegeLevel", "users[1].sshPublicKey: \"(not shown)\""}, "P4ssw0rd"},
		{"bmc file", append([]string{"keyset", "create", "--cluster", "lab-two", "--file", bmc}, addr...),
			[]string{"accounts[0].password", "passwordSecretRef {namespace, name, key}", "accounts[0].passwordSecretRef.name", "looks like a password"}, "Sup3rSecret"},
		{"no flags", append([]string{"keyset", "create"}, addr...), []string{"--cluster is required", "--file is required"}, ""},
		{"missing file", append([]string{"keyset", "create", "--cluster", "c", "--file", filepath.Join(t.TempDir(), "nope.yaml")}, addr...), []string{"nope.yaml"}, ""},
		{"delete without name", append([]string{"keyset", "delete", "--cluster", "c"}, addr...), []string{"--name", "required"}, ""},
		{"show without flags", append([]string{"keyset", "show"}, addr...), []string{"--cluster", "--name", "required"}, ""},
		{"apply without flags", append([]string{"keyset", "apply"}, addr...), []string{"--cluster", "--name", "required"}, ""},
		{"list without cluster", append([]string{"keyset", "list"}, addr...), []string{"--cluster is required"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, tc.args...)
			if err == nil {
				t.Fatal("accepted; want a refusal")
			}
			var ce *codedError
			if errors.As(err, &ce) && ce.code != exitError {
				t.Fatalf("exit %d, want %d", ce.code, exitError)
			}
			if strings.Contains(err.Error(), "connect to Temporal") {
				t.Fatalf("dialled before refusing: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if tc.secret != "" && strings.Contains(err.Error(), tc.secret) {
				t.Errorf("error repeats %q:\n%v", tc.secret, err)
			}
		})
	}
}

// What `keyset show` prints: fingerprints, never the key, in a table and
// in JSON; the expiry state from the clock.
func TestKeysetOutputHasNoKey(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	s, err := keyset.Check(keyset.Spec{Name: "oncall", Kind: keyset.KindBMM, PrivilegeLevel: keyset.Superuser,
		Expiration: now.Add(2 * time.Hour), Users: []keyset.User{{Name: "alice", SSHPublicKey: testPublicKey}}}, now)
	if err != nil {
		t.Fatal(err)
	}
	k := keyset.Keyset{Spec: s, Updated: now, By: "carol"}
	blob := strings.Fields(testPublicKey)[1]
	for _, format := range []string{"table", "json", "yaml"} {
		out := shown(t, keysetView{Keyset: k}, format, now)
		if strings.Contains(out, blob[20:60]) {
			t.Errorf("%s output carries the key:\n%s", format, out)
		}
		if !strings.Contains(out, testFingerprint) {
			t.Errorf("%s output lacks the fingerprint:\n%s", format, out)
		}
		if format == "table" && !strings.Contains(out, "expires 2026-11-27T14:00:00Z (active, 2h0m0s left); updated 2026-11-27T12:00:00Z by carol") {
			t.Errorf("table lacks the expiry line:\n%s", out)
		}
		if format == "json" {
			var back keyset.Keyset
			if err := json.Unmarshal([]byte(out), &back); err != nil || back.Users[0].Fingerprint != testFingerprint {
				t.Errorf("json: %v %+v", err, back)
			}
		}
	}
	if got := expiryState(k, now.Add(2*time.Hour)); got != "expired" {
		t.Errorf("at its expiration a keyset is %q, want expired", got)
	}
}

// `cluster show` names the keysets, each with what it gives, whether it
// is still on and on how many BMCs (a BMC keyset) or nodes (a BMM one) it
// is applied.
func TestKeysetsLine(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	if got := keysetsLine(api.ClusterState{}, now); got != "" {
		t.Fatalf("no keysets: %q", got)
	}
	var st api.ClusterState
	st.Cluster.BMMs = []model.BMM{{Name: "rack1-c1"}, {Name: "rack1-c2"}, {Name: "rack1-c3"}}
	st.Keysets = []keyset.Keyset{
		{Spec: keyset.Spec{Name: "bmc-oncall", Kind: keyset.KindBMC, Role: keyset.ReadOnly, Expiration: now.Add(-time.Second), Accounts: []keyset.Account{{Name: "a"}}},
			Outcomes: []keyset.Outcome{{BMM: "rack1-c1", State: keyset.Applied}, {BMM: "rack1-c3", State: keyset.Failed}}},
		{Spec: keyset.Spec{Name: "oncall", Kind: keyset.KindBMM, PrivilegeLevel: keyset.Superuser, Expiration: now.Add(time.Hour), Users: []keyset.User{{Name: "a"}, {Name: "b"}}},
			Outcomes: []keyset.Outcome{{BMM: "rack1-c1", State: keyset.Applied}, {BMM: "rack1-c2", State: keyset.Applied}}},
	}
	want := "keysets: bmc-oncall (bmc ReadOnly, 1, expired, removed from 0 of 3 BMCs, 1 failed, 1 pending, 1 not yet removed); oncall (bmm superuser, 2, active, applied on 2 of 3 nodes, 1 pending) — `starter keyset show`"
	if got := keysetsLine(st, now); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// `keyset show` of a BMC keyset: each BMM's outcome, pending where the
// ledger has none, in a table and in JSON; a deleted one says so.
func TestKeysetShowOutcomes(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var st api.ClusterState
	st.Cluster.BMMs = []model.BMM{{Name: "rack1-c1"}, {Name: "rack1-c2"}, {Name: "rack1-c3"}}
	k := keyset.Keyset{Spec: keyset.Spec{Name: "bmc-oncall", Kind: keyset.KindBMC, Role: keyset.Operator, Expiration: now.Add(time.Hour),
		Accounts: []keyset.Account{{Name: "alice", PasswordSecretRef: keyset.SecretRef{Namespace: "rackroll", Name: "bmc-alice", Key: "password"}}}},
		Updated: now, Outcomes: []keyset.Outcome{
			{BMM: "rack1-c1", State: keyset.Applied, Role: keyset.Operator, At: now},
			{BMM: "rack1-c3", State: keyset.Failed, Reason: "account alice: no room for account alice", At: now}}}
	st.Keysets = []keyset.Keyset{k}
	v := mustView(t, st, "bmc-oncall")
	out := shown(t, v, "table", now)
	for _, want := range []string{"bmc of rack1-c1: applied (Operator) at 2026-11-27T12:00:00Z", "bmc of rack1-c2: pending",
		"bmc of rack1-c3: failed at 2026-11-27T12:00:00Z: account alice: no room for account alice", "applied on 1 of 3 BMCs, 1 failed, 1 pending"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not yet applied") {
		t.Errorf("a BMC keyset is applied now:\n%s", out)
	}
	out = shown(t, v, "json", now)
	var back keysetView
	if err := json.Unmarshal([]byte(out), &back); err != nil || len(back.BMCs) != 3 || back.BMCs[1].State != keyset.Pending || back.Name != "bmc-oncall" {
		t.Errorf("json: %v %+v", err, back)
	}
	st.Keysets, st.RemovedKeysets = keyset.Retire(st.Keysets, nil, "bmc-oncall", "bob", now)
	st.RemovedKeysets[0].Outcomes = []keyset.Outcome{{BMM: "rack1-c1", State: keyset.Removed, At: now}, {BMM: "rack1-c2", State: keyset.Disabled, At: now}}
	out = shown(t, mustView(t, st, "bmc-oncall"), "table", now)
	for _, want := range []string{"deleted 2026-11-27T12:00:00Z by bob", "bmc of rack1-c1: removed at", "bmc of rack1-c2: disabled at",
		"removed from 1 of 3 BMCs, 1 disabled, 1 pending"} {
		if !strings.Contains(out, want) {
			t.Errorf("deleted: table lacks %q:\n%s", want, out)
		}
	}
}

// `keyset show` of a BMM keyset: each node's outcome, pending where the
// ledger has none, in a table and in JSON (nodes).
func TestKeysetShowNodeOutcomes(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var st api.ClusterState
	st.Cluster.BMMs = []model.BMM{{Name: "rack1-c1"}, {Name: "rack1-c2"}, {Name: "rack1-c3"}}
	st.Keysets = []keyset.Keyset{{Spec: keyset.Spec{Name: "oncall", Kind: keyset.KindBMM, PrivilegeLevel: keyset.Superuser, Expiration: now.Add(time.Hour),
		Users: []keyset.User{{Name: "alice", KeyType: "ssh-ed25519", Fingerprint: testFingerprint}}},
		Updated: now, Outcomes: []keyset.Outcome{
			{BMM: "rack1-c1", State: keyset.Applied, At: now},
			{BMM: "rack1-c3", State: keyset.Failed, Reason: "node rack1-c3 did not run its keyset pod within 58s", At: now}}}}
	v := mustView(t, st, "oncall")
	out := shown(t, v, "table", now)
	for _, want := range []string{"node of rack1-c1: applied at 2026-11-27T12:00:00Z", "node of rack1-c2: pending",
		"node of rack1-c3: failed at 2026-11-27T12:00:00Z: node rack1-c3 did not run its keyset pod within 58s", "applied on 1 of 3 nodes, 1 failed, 1 pending"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not yet applied") || strings.Contains(out, "bmc of") {
		t.Errorf("a BMM keyset shows BMCs or \"not yet applied\":\n%s", out)
	}
	out = shown(t, v, "json", now)
	var back keysetView
	if err := json.Unmarshal([]byte(out), &back); err != nil || len(back.Nodes) != 3 || back.Nodes[1].State != keyset.Pending || len(back.BMCs) != 0 {
		t.Errorf("json: %v %+v", err, back)
	}
}
