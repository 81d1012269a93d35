package bmc

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The BMC account activity against the lab's Redfish server, in both
// shapes of AccountService: a collection that grows by POST and shrinks by
// DELETE (ilo5; idrac10, which only takes sessions) and a fixed table of
// slots (idrac9, where POST and DELETE answer 405 and a PATCH empties a
// slot). Vendors' differences: accounts_vendor_lab_test.go.

// accountLab is a lab BMC whose worker reads Secrets from secrets
// ("namespace/name" → data).
func accountLab(t *testing.T, profile string, limit int, secrets map[string]map[string][]byte) *labRig {
	t.Helper()
	l := newLab(t, redfishtest.Profile(profile), func(c *redfish.Config) { c.AccountLimit = limit })
	l.a.Secrets = func(_ context.Context, ns, name string) (map[string][]byte, error) {
		d, ok := secrets[ns+"/"+name]
		if !ok {
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, name)
		}
		return d, nil
	}
	return l
}

func (l *labRig) account(in AccountInput) (AccountResult, error) {
	l.t.Helper()
	in.Endpoint, in.Keyset = l.ep, "bmc-oncall"
	val, err := l.env.ExecuteActivity(l.a.EnsureAccount, in)
	var res AccountResult
	if err == nil {
		require.NoError(l.t, val.Get(&res))
	}
	return res, err
}

func (l *labRig) shown(user string) (redfish.Account, bool) {
	for _, a := range l.bmc.Accounts() {
		if a.UserName == user {
			return a, true
		}
	}
	return redfish.Account{}, false
}

func secretRef(name string) keyset.SecretRef {
	return keyset.SecretRef{Namespace: "rackroll", Name: name, Key: "password"}
}

func TestLabAccountLifecycleInBothShapes(t *testing.T) {
	const first, second = "alice-First-pw1", "alice-Second-pw2"
	for _, c := range []struct{ profile, created, removed string }{
		{"ilo5", AccountCreated, AccountDeleted}, {"idrac10", AccountCreated, AccountDeleted}, {"idrac9", AccountCreatedInSlot, AccountFreed},
	} {
		t.Run(c.profile, func(t *testing.T) {
			secrets := map[string]map[string][]byte{"rackroll/bmc-alice": {"password": []byte(first + "\n")}}
			l := accountLab(t, c.profile, 0, secrets)
			in := AccountInput{UserName: "alice", Role: keyset.Operator, Enable: true, PasswordSecret: secretRef("bmc-alice")}
			res, err := l.account(in)
			require.NoError(t, err)
			assert.Equal(t, c.created, res.Action)
			assert.Equal(t, []any{"alice", "Operator", true}, []any{res.UserName, res.Role, res.Enabled})
			a, ok := l.shown("alice")
			require.True(t, ok)
			assert.Equal(t, []any{"Operator", true}, []any{a.RoleID, a.Enabled})
			assert.True(t, l.bmc.AccountPasswordIs("alice", first), "the password is the Secret's, newline dropped")
			if c.profile == "idrac9" {
				assert.Equal(t, "3", a.ID, "slot 1 is reserved, slot 2 the BMC's own: the first free slot is 3")
			}
			out, _ := json.Marshal(res)
			assert.NotContains(t, string(out), first)

			// Applied again with another role and a rotated password: the
			// same account, updated, not a second one.
			secrets["rackroll/bmc-alice"]["password"] = []byte(second)
			in.Role = keyset.Administrator
			res, err = l.account(in)
			require.NoError(t, err)
			assert.Equal(t, AccountUpdated, res.Action)
			assert.Equal(t, "Administrator", res.Role)
			assert.True(t, l.bmc.AccountPasswordIs("alice", second))
			n := 0
			for _, a := range l.bmc.Accounts() {
				if a.UserName == "alice" {
					n++
				}
			}
			assert.Equal(t, 1, n)

			// Removed (deleted, or its slot emptied: read back gone), then
			// again: nothing to do.
			off := AccountInput{UserName: "alice"}
			res, err = l.account(off)
			require.NoError(t, err)
			assert.Equal(t, c.removed, res.Action)
			assert.False(t, res.Enabled)
			_, found := l.shown("alice")
			assert.False(t, found, "the account is gone, not disabled")
			res, err = l.account(off)
			require.NoError(t, err)
			assert.Equal(t, AccountAbsent, res.Action)
			res, err = l.account(AccountInput{UserName: "bob"})
			require.NoError(t, err)
			assert.Equal(t, AccountAbsent, res.Action)
		})
	}
}

// The cap, in both shapes: a typed, non-retryable error naming the BMM
// and the account. On idrac9 the reserved slot 1 looks empty; the
// activity skips it by id.
func TestLabAccountLimit(t *testing.T) {
	secrets := map[string]map[string][]byte{
		"rackroll/bmc-alice": {"password": []byte("alice-Secret-1")},
		"rackroll/bmc-bob":   {"password": []byte("bob-Secret-12")},
	}
	for _, c := range []struct {
		profile string
		limit   int
		want    string
	}{{"ilo5", 2, "refuses one more"}, {"idrac9", 3, "no empty account slot"}} {
		t.Run(c.profile, func(t *testing.T) {
			l := accountLab(t, c.profile, c.limit, secrets)
			_, err := l.account(AccountInput{UserName: "alice", Role: keyset.ReadOnly, Enable: true, PasswordSecret: secretRef("bmc-alice")})
			require.NoError(t, err)
			_, err = l.account(AccountInput{UserName: "bob", Role: keyset.ReadOnly, Enable: true, PasswordSecret: secretRef("bmc-bob")})
			ae := appError(t, err, ErrTypeAccountLimit, false)
			assert.Contains(t, ae.Error(), redfishtest.BMM)
			assert.Contains(t, ae.Error(), `"bob"`)
			assert.Contains(t, ae.Error(), c.want)
			assert.NotContains(t, ae.Error(), "bob-Secret-12")
			_, found := l.shown("bob")
			assert.False(t, found)
		})
	}
}

// Bad input and a missing password are refused before the BMC is asked
// anything; the BMC's own login account is never a keyset's; a password
// the BMC's rules refuse is refused before anything is sent, and not
// quoted.
func TestLabAccountRefusals(t *testing.T) {
	secrets := map[string]map[string][]byte{
		"rackroll/bmc-alice": {"password": []byte("alice-Secret-1")},
		"rackroll/short":     {"password": []byte("tiny")},
	}
	l := accountLab(t, "idrac9", 0, secrets)
	before := l.bmc.Accounts()
	for _, c := range []struct {
		in   AccountInput
		want []string
	}{
		{AccountInput{UserName: "alice", Role: "Root", Enable: true, PasswordSecret: secretRef("bmc-alice")}, []string{`role "Root"`, "Administrator, Operator, ReadOnly"}},
		{AccountInput{UserName: "alice", Role: keyset.Operator, Enable: true}, []string{"passwordSecret", "required"}},
		{AccountInput{UserName: "a-name-far-too-long", Role: keyset.Operator, Enable: true, PasswordSecret: secretRef("bmc-alice")}, []string{"userName", "16"}},
		{AccountInput{UserName: "alice", Role: keyset.Operator, Enable: true, PasswordSecret: secretRef("missing")}, []string{"rackroll/missing", "does not exist"}},
		{AccountInput{UserName: "alice", Role: keyset.Operator, Enable: true, PasswordSecret: keyset.SecretRef{Namespace: "rackroll", Name: "bmc-alice", Key: "pw"}}, []string{"rackroll/bmc-alice", `key "pw"`}},
		{AccountInput{UserName: redfishtest.Username, Role: keyset.Operator, Enable: true, PasswordSecret: secretRef("bmc-alice")}, []string{"logs in to this BMC with"}},
	} {
		_, err := l.account(c.in)
		ae := appError(t, err, ErrTypeConfig, false)
		for _, w := range c.want {
			assert.Contains(t, ae.Error(), w)
		}
		assert.NotContains(t, ae.Error(), "alice-Secret-1")
	}
	assert.Equal(t, before, l.bmc.Accounts(), "nothing changed")

	_, err := l.account(AccountInput{UserName: "alice", Role: keyset.Operator, Enable: true, PasswordSecret: secretRef("short")})
	ae := appError(t, err, ErrTypeConfig, false)
	assert.Contains(t, ae.Error(), "MinPasswordLength 8")
	assert.Contains(t, ae.Error(), "rackroll/short")
	assert.NotContains(t, ae.Error(), "tiny")
	assert.Zero(t, l.bmc.AccountWrites(), "no account request was sent")
}

// scrub cuts a password a BMC quoted out of its refusal, keeping the kind.
func TestScrubKeepsKindAndDropsThePassword(t *testing.T) {
	err := scrub(&failure{kindRejected, `HTTP 400: the value "s3cret-pw" for Password is too simple`}, "s3cret-pw")
	assert.Equal(t, kindRejected, classify(err))
	assert.NotContains(t, err.Error(), "s3cret-pw")
	assert.Contains(t, err.Error(), "<redacted>")
	assert.Nil(t, scrub(nil, "x"))
	assert.Contains(t, bmcclient.AccountPatch{Password: new(string)}.String(), "<redacted>")
}
