package keyset

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/stretchr/testify/require"
)

var now = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func bmmSpec(t *testing.T) Spec {
	keys := testKeys(t)
	return Spec{Name: "oncall", Kind: KindBMM, PrivilegeLevel: Superuser, Expiration: now.Add(48 * time.Hour),
		Users: []User{{Name: "alice", SSHPublicKey: keys["ed25519"].line}, {Name: "bob", SSHPublicKey: keys["rsa"].line, Description: "SRE"}}}
}

func bmcSpec() Spec {
	return Spec{Name: "bmc-oncall", Kind: KindBMC, Role: Operator, Expiration: now.Add(time.Hour),
		Accounts: []Account{{Name: "alice", PasswordSecretRef: SecretRef{Namespace: "rackroll", Name: "bmc-alice", Key: "password"}}}}
}

// problems indexes a validation error's problems by field.
func problems(t *testing.T, err error) map[string]model.Problem {
	t.Helper()
	var ve *model.ValidationError
	require.True(t, errors.As(err, &ve), "%v", err)
	out := map[string]model.Problem{}
	for _, p := range ve.Problems {
		_, dup := out[p.Field]
		require.False(t, dup, "field %s named twice: %v", p.Field, err)
		out[p.Field] = p
	}
	return out
}

// A good keyset passes, each user's key type and fingerprint derived from
// the key (whatever the input said there).
func TestCheckGood(t *testing.T) {
	keys := testKeys(t)
	s := bmmSpec(t)
	s.Users[0].Fingerprint, s.Users[0].KeyType = "SHA256:forged", "ssh-rsa"
	got, err := Check(s, now)
	require.NoError(t, err)
	require.Equal(t, keys["ed25519"].fingerprint, got.Users[0].Fingerprint)
	require.Equal(t, "ssh-ed25519", got.Users[0].KeyType)
	require.Equal(t, keys["rsa"].fingerprint, got.Users[1].Fingerprint)
	require.Equal(t, "SHA256:forged", s.Users[0].Fingerprint, "the caller's spec is not changed")

	b, err := Check(bmcSpec(), now)
	require.NoError(t, err)
	require.Equal(t, bmcSpec(), b)
}

// A BMM keyset with everything wrong gets every problem at once, each
// with its field, the value (unless it may be a secret) and what is
// allowed.
func TestCheckBMMNamesEveryProblem(t *testing.T) {
	keys := testKeys(t)
	s := Spec{Name: "On Call", Kind: KindBMM, PrivilegeLevel: "admin", Role: Administrator, Expiration: now.Add(-time.Minute),
		Description: "line\nbreak",
		Accounts:    []Account{{Name: "x"}},
		Users: []User{
			{Name: "alice", SSHPublicKey: keys["ed25519"].line},
			{Name: "alice", SSHPublicKey: keys["ed25519"].line},
			{Name: "Root", SSHPublicKey: "hunter2-Secret!"},
			{Name: "root", SSHPublicKey: keys["rsa1024"].line},
			{Name: "", SSHPublicKey: ""},
		}}
	p := problems(t, func() error { _, err := Check(s, now); return err }())
	want := map[string]string{
		"name":                  "a DNS label",
		"description":           "one line of text",
		"expiration":            "in the past (now is 2026-11-27T12:00:00Z)",
		"privilegeLevel":        "allowed: standard, superuser",
		"role":                  "only for a bmc keyset",
		"accounts":              "only for a bmc keyset",
		"users[1].name":         "duplicate: users[0] has the same name",
		"users[1].sshPublicKey": "the same key as users[0]",
		"users[2].name":         "an OS user name",
		"users[2].sshPublicKey": "not an OpenSSH public key",
		"users[3].name":         "reserved",
		"users[3].sshPublicKey": "1024 bits: RSA keys need at least 2048",
		"users[4].name":         "required",
		"users[4].sshPublicKey": "required",
	}
	for f, msg := range want {
		require.Contains(t, p, f)
		require.Contains(t, p[f].Message, msg, f)
	}
	require.Len(t, p, len(want), "%v", p)
	require.Equal(t, "On Call", p["name"].Value)
	require.Equal(t, "admin", p["privilegeLevel"].Value)
	require.Equal(t, "2026-11-27T11:59:00Z", p["expiration"].Value)
	require.Equal(t, keys["ed25519"].fingerprint, p["users[1].sshPublicKey"].Value, "a duplicate key is named by its fingerprint")
	require.Equal(t, "(not shown)", p["users[2].sshPublicKey"].Value)
	_, err := Check(s, now)
	require.NotContains(t, err.Error(), "hunter2")
}

// A BMC keyset: unknown role, bad and password-looking references, a
// built-in account, duplicates without case; a password is never quoted.
func TestCheckBMCNamesEveryProblem(t *testing.T) {
	s := Spec{Name: "bmc", Kind: KindBMC, Role: "root", PrivilegeLevel: Standard,
		Users: []User{{Name: "alice"}},
		Accounts: []Account{
			{Name: "alice", PasswordSecretRef: SecretRef{Namespace: "rackroll", Name: "S3cretPassw0rd", Key: "password"}},
			{Name: "ALICE", PasswordSecretRef: SecretRef{Namespace: "Rack Roll", Name: "bmc_alice", Key: "p@ss word!"}},
			{Name: "Administrator", PasswordSecretRef: SecretRef{}},
			{Name: "a-name-far-too-long-for-a-bmc", PasswordSecretRef: SecretRef{Namespace: "rackroll", Name: "ok", Key: "password"}},
		}}
	_, err := Check(s, now)
	p := problems(t, err)
	want := map[string]struct{ value, msg string }{
		"expiration":                         {"", "required: when the access ends"},
		"role":                               {"root", "allowed: Administrator, Operator, ReadOnly"},
		"privilegeLevel":                     {"standard", "only for a bmm keyset"},
		"users":                              {"1", "only for a bmm keyset"},
		"accounts[0].passwordSecretRef.name": {"(redacted)", "looks like a password, not a reference"},
		"accounts[1].name":                   {"ALICE", "duplicate: accounts[0] has the same name"},
		"accounts[1].passwordSecretRef.namespace": {"(redacted)", "looks like a password"},
		"accounts[1].passwordSecretRef.name":      {"bmc_alice", "a Secret's name"},
		"accounts[1].passwordSecretRef.key":       {"(redacted)", "looks like a password"},
		"accounts[2].name":                        {"Administrator", "a BMC's built-in account"},
		"accounts[2].passwordSecretRef.namespace": {"", "required: the password goes in a Kubernetes Secret"},
		"accounts[2].passwordSecretRef.name":      {"", "required"},
		"accounts[2].passwordSecretRef.key":       {"", "required"},
		"accounts[3].name":                        {"a-name-far-too-long-for-a-bmc", "1 to 16 letters"},
	}
	for f, w := range want {
		require.Contains(t, p, f)
		require.Equal(t, w.value, p[f].Value, f)
		require.Contains(t, p[f].Message, w.msg, f)
	}
	require.Len(t, p, len(want), "%v", p)
	for _, secret := range []string{"S3cretPassw0rd", "p@ss", "Rack Roll"} {
		require.NotContains(t, err.Error(), secret)
	}
}

func TestCheckKindAndLimits(t *testing.T) {
	_, err := Check(Spec{}, now)
	p := problems(t, err)
	require.Contains(t, p["kind"].Message, "required: bmm")
	require.Contains(t, p["name"].Message, "required")
	require.Len(t, p, 3) // name, kind, expiration

	_, err = Check(Spec{Name: "x", Kind: "ipmi", Expiration: now.Add(time.Hour)}, now)
	require.Equal(t, "ipmi", problems(t, err)["kind"].Value)

	s := bmmSpec(t)
	s.Users = make([]User, MaxUsers+1)
	_, err = Check(s, now)
	require.Contains(t, problems(t, err)["users"].Message, "at most 100 users")

	b := bmcSpec()
	for len(b.Accounts) <= MaxAccounts {
		b.Accounts = append(b.Accounts, b.Accounts[0])
	}
	_, err = Check(b, now)
	require.Contains(t, problems(t, err)["accounts"].Message, "at most 8 accounts")

	s = bmmSpec(t)
	s.Description = strings.Repeat("x", MaxDescription+1)
	_, err = Check(s, now)
	require.Contains(t, problems(t, err)["description"].Message, "257 characters: at most 256")

	s = bmmSpec(t)
	s.Expiration = now
	_, err = Check(s, now)
	require.Contains(t, problems(t, err)["expiration"].Message, "in the past", "an expiry of now is over")
}

func TestLooksLikePassword(t *testing.T) {
	for v, want := range map[string]bool{
		"bmc-alice": false, "bmc_alice": false, "Bmc_Alice": false, "UPPER": false,
		"S3cretPassw0rd": true, "hunter2!": true, "two words": true, "a/b": true,
	} {
		require.Equal(t, want, LooksLikePassword(v), v)
	}
}
