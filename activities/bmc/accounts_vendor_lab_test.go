package bmc

import (
	"testing"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Accounts as vendors keep them, against the lab's BMCs: a keyset's
// accounts made and taken away again and again leave the BMC as it was
// (slots emptied on idrac9, accounts deleted on ilo5 and ilo4), on BMCs
// with room for only the keyset's two accounts; iLO 4's accounts without
// Enabled and its refusal of RoleId; the BMCs' password rules.

var vendorSecrets = map[string]map[string][]byte{
	"rackroll/bmc-alice": {"password": []byte("alice-Secret-1")},
	"rackroll/bmc-bob":   {"password": []byte("bob-Secret-12")},
	"rackroll/short":     {"password": []byte("tiny")},
	"rackroll/long":      {"password": []byte("a-password-of-forty-one-characters-123456")},
}

func TestLabKeysetAccountsMadeAndRemoved20TimesLeaveNothing(t *testing.T) {
	for _, c := range []struct {
		profile          string
		limit            int // the BMC's own, two more (idrac9: slot 1 reserved)
		created, removed string
	}{
		{"idrac9", 4, AccountCreatedInSlot, AccountFreed},
		{"ilo5", 3, AccountCreated, AccountDeleted},
		{"ilo4", 3, AccountCreated, AccountDeleted},
	} {
		t.Run(c.profile, func(t *testing.T) {
			l := accountLab(t, c.profile, c.limit, vendorSecrets)
			users := func() (out []string) {
				for _, a := range l.bmc.Accounts() {
					out = append(out, a.ID+":"+a.UserName)
				}
				return out
			}
			before := users()
			for i := range 20 {
				for _, user := range []string{"alice", "bob"} {
					res, err := l.account(AccountInput{UserName: user, Role: keyset.Operator, Enable: true, PasswordSecret: secretRef("bmc-" + user)})
					require.NoError(t, err, "round %d", i+1)
					require.Equal(t, c.created, res.Action)
				}
				for _, user := range []string{"alice", "bob"} {
					res, err := l.account(AccountInput{UserName: user})
					require.NoError(t, err, "round %d", i+1)
					require.Equal(t, c.removed, res.Action)
				}
			}
			assert.Equal(t, before, users(), "every slot free again, every account gone")
			for _, a := range l.bmc.Accounts() {
				if !a.BuiltIn {
					assert.Equal(t, []any{"", false}, []any{a.UserName, a.Enabled}, "slot %s", a.ID)
				}
			}
		})
	}
}

// iLO 4: no Enabled (the account logs in while it exists: applied without
// sending Enabled, read back enabled, removed by DELETE, never taken as
// already disabled) and RoleId refused 400, so the role goes as the
// vendor's privileges and is read back from them.
func TestLabAccountWithoutEnabledAndRoleIDRefused(t *testing.T) {
	l := accountLab(t, "ilo4", 0, vendorSecrets)
	res, err := l.account(AccountInput{UserName: "alice", Role: keyset.Operator, Enable: true, PasswordSecret: secretRef("bmc-alice")})
	require.NoError(t, err)
	assert.Equal(t, []any{AccountCreated, "Operator", true}, []any{res.Action, res.Role, res.Enabled})
	a, ok := l.shown("alice")
	require.True(t, ok)
	assert.Equal(t, map[string]bool{"LoginPriv": true, "RemoteConsolePriv": true, "VirtualMediaPriv": true, "VirtualPowerAndResetPriv": true,
		"iLOConfigPriv": false, "UserConfigPriv": false}, a.Privileges)
	assert.True(t, l.bmc.AccountPasswordIs("alice", "alice-Secret-1"))

	// Raised to Administrator, then lowered to ReadOnly: the privileges
	// follow both ways.
	for _, role := range []keyset.Role{keyset.Administrator, keyset.ReadOnly} {
		res, err = l.account(AccountInput{UserName: "alice", Role: role, Enable: true, PasswordSecret: secretRef("bmc-alice")})
		require.NoError(t, err)
		assert.Equal(t, []any{AccountUpdated, string(role)}, []any{res.Action, res.Role})
		a, _ = l.shown("alice")
		assert.Equal(t, string(role), a.RoleID, "the role the privileges stand for")
	}

	res, err = l.account(AccountInput{UserName: "alice"})
	require.NoError(t, err)
	assert.Equal(t, AccountDeleted, res.Action)
	_, ok = l.shown("alice")
	assert.False(t, ok)
}

// A password the BMC's AccountService rules refuse is refused before any
// account request is sent, naming the Secret and the rule, never the
// password: DMTF's MinPasswordLength and MaxPasswordLength (idrac9), HPE's
// Oem.Hp.MinPasswordLength (ilo4).
func TestLabPasswordBreakingTheBMCsRulesIsRefusedFirst(t *testing.T) {
	for _, c := range []struct{ profile, secret, want string }{
		{"idrac9", "short", "shorter than the BMC's MinPasswordLength 8"},
		{"idrac9", "long", "longer than the BMC's MaxPasswordLength 40"},
		{"ilo4", "short", "shorter than the BMC's MinPasswordLength 8"},
	} {
		t.Run(c.profile+"/"+c.secret, func(t *testing.T) {
			l := accountLab(t, c.profile, 0, vendorSecrets)
			before := l.bmc.Accounts()
			_, err := l.account(AccountInput{UserName: "alice", Role: keyset.Operator, Enable: true, PasswordSecret: secretRef(c.secret)})
			ae := appError(t, err, ErrTypeConfig, false)
			assert.Contains(t, ae.Error(), c.want)
			assert.Contains(t, ae.Error(), `Secret rackroll/`+c.secret+` key "password"`)
			assert.NotContains(t, ae.Error(), string(vendorSecrets["rackroll/"+c.secret]["password"]))
			assert.Zero(t, l.bmc.AccountWrites(), "nothing was sent")
			assert.Equal(t, before, l.bmc.Accounts())
		})
	}
}
