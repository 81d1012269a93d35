package bmc

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

// The pure decisions of accounts_vendor.go, and the activity's choices on
// BMCs the lab does not play (a fake AccountClient).

func TestShapeOfReadsEnabledAndTheVendorsPrivileges(t *testing.T) {
	ilo := []bmcclient.AccountInfo{{ID: "1", UserName: "Administrator", Enabled: true, NoEnabled: true, OemVendor: "Hpe", Privileges: map[string]bool{"LoginPriv": true}}}
	assert.Equal(t, accountShape{enabled: false, vendor: "Hpe"}, shapeOf(ilo))
	dell := []bmcclient.AccountInfo{{ID: "1"}, {ID: "2", UserName: "root", RoleID: "Administrator", Enabled: true}}
	assert.Equal(t, accountShape{enabled: true}, shapeOf(dell))
	assert.True(t, slotBased(dell), "a member without a user is a free slot")
	assert.False(t, slotBased(ilo))
	assert.Empty(t, emptySlots(dell), "slot 1 is reserved, skipped by id")
}

func TestVendorPrivilegesStandForTheRoles(t *testing.T) {
	for _, r := range []keyset.Role{keyset.ReadOnly, keyset.Operator, keyset.Administrator} {
		assert.Equal(t, string(r), roleOfPrivileges(vendorPrivileges(r)))
	}
	op := vendorPrivileges(keyset.Operator)
	assert.Equal(t, []bool{true, true, false, false}, []bool{op["RemoteConsolePriv"], op["VirtualPowerAndResetPriv"], op["iLOConfigPriv"], op["UserConfigPriv"]})
	assert.Empty(t, roleOfPrivileges(map[string]bool{"LoginPriv": true, "UserConfigPriv": true}), "a set rackroll did not make")
	assert.Empty(t, roleOfPrivileges(nil))

	// The body: the privileges in place of RoleId, no Enabled where the
	// accounts have none.
	in := AccountInput{UserName: "alice", Role: keyset.ReadOnly}
	b, err := json.Marshal(wantPatch(in, "pw-123456", true, accountShape{vendor: "Hpe", privileges: true}))
	require.NoError(t, err)
	assert.JSONEq(t, `{"UserName":"alice","Password":"pw-123456","Oem":{"Hpe":{"Privileges":{"LoginPriv":true,"RemoteConsolePriv":false,
		"VirtualMediaPriv":false,"VirtualPowerAndResetPriv":false,"iLOConfigPriv":false,"UserConfigPriv":false}}}}`, string(b))
	assert.NotContains(t, wantPatch(in, "pw-123456", true, accountShape{vendor: "Hpe", privileges: true}).String(), "pw-123456")
}

func TestRoleRefusedOnlyForRoleID(t *testing.T) {
	assert.True(t, roleRefused(&bmcclient.StatusError{Status: 400, Code: "Base.1.0.PropertyUnknown", Message: "The property RoleId is not in the list of valid properties for the resource."}))
	assert.False(t, roleRefused(&bmcclient.StatusError{Status: 400, Code: "Base.1.0.PropertyValueFormatError", Message: "The value for the property Password is not in a format"}))
	assert.False(t, roleRefused(&bmcclient.StatusError{Status: 503, Message: "RoleId service busy"}), "not a refusal")
}

func TestCheckPasswordNamesTheSecretAndTheRuleNotThePassword(t *testing.T) {
	in := AccountInput{UserName: "alice", Keyset: "oncall", PasswordSecret: keyset.SecretRef{Namespace: "rackroll", Name: "bmc-alice", Key: "password"}}
	rules := bmcclient.AccountRules{MinPasswordLength: 8, MaxPasswordLength: 20, LockoutThreshold: 5, LockoutDuration: 30}
	assert.NoError(t, checkPassword("eight-ch", rules, in))
	assert.NoError(t, checkPassword("x", bmcclient.AccountRules{}, in), "no rules shown, none applied")
	err := checkPassword("tiny-pw", rules, in)
	require.Error(t, err)
	assert.Equal(t, kindConfig, classify(err))
	for _, w := range []string{`Secret rackroll/bmc-alice key "password"`, "MinPasswordLength 8", "at most 20", "locked for 30 s after 5 failed logins"} {
		assert.Contains(t, err.Error(), w)
	}
	assert.NotContains(t, err.Error(), "tiny-pw")
	err = checkPassword("a-password-too-long-for-it", rules, in)
	assert.Contains(t, err.Error(), "longer than the BMC's MaxPasswordLength 20")
	assert.NotContains(t, err.Error(), "too-long")
}

// vendorFake is a BMC's AccountService as a test sets it.
type vendorFake struct {
	*fakeClient
	list            []bmcclient.AccountInfo
	patch, del      func(uri string, p bmcclient.AccountPatch) error
	patches, delete int
}

func (f *vendorFake) LoginName() string { return "root" }
func (f *vendorFake) Accounts(context.Context) ([]bmcclient.AccountInfo, error) {
	return f.list, nil
}
func (f *vendorFake) AccountRules(context.Context) (bmcclient.AccountRules, error) {
	return bmcclient.AccountRules{}, nil
}
func (f *vendorFake) CreateAccount(context.Context, bmcclient.AccountPatch) error {
	panic("no POST expected")
}
func (f *vendorFake) PatchAccount(_ context.Context, uri string, p bmcclient.AccountPatch, _ string) error {
	f.patches++
	return f.patch(uri, p)
}
func (f *vendorFake) DeleteAccount(_ context.Context, uri, _ string) error {
	f.delete++
	return f.del(uri, bmcclient.AccountPatch{})
}

func (f *vendorFake) ensure(t *testing.T, in AccountInput) (AccountResult, error) {
	t.Helper()
	a := activitiesWith(f.fakeClient)
	a.Dial = func(context.Context, bmcclient.Endpoint, bmcclient.Credentials, time.Duration) (bmcclient.Client, error) {
		return f, nil
	}
	a.Secrets = func(context.Context, string, string) (map[string][]byte, error) {
		return map[string][]byte{"password": []byte("alice-Secret-1")}, nil
	}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	in.Endpoint, in.Keyset = testEndpoint, "k"
	val, err := env.ExecuteActivity(a.EnsureAccount, in)
	var res AccountResult
	if err == nil {
		require.NoError(t, val.Get(&res))
	}
	return res, err
}

// A slot-based BMC refusing the password by a policy its AccountService
// does not show: quoted at the first slot, not tried in the others and
// reported as no room.
func TestSlotRefusalIsQuotedAtTheFirstSlot(t *testing.T) {
	f := &vendorFake{fakeClient: newFake(), list: []bmcclient.AccountInfo{
		{ID: "1", URI: "/a/1"}, {ID: "2", URI: "/a/2", UserName: "root", Enabled: true}, {ID: "3", URI: "/a/3"}, {ID: "4", URI: "/a/4"},
	}}
	f.patch = func(uri string, _ bmcclient.AccountPatch) error {
		assert.Equal(t, "/a/3", uri, "slot 1 is skipped by id")
		return &bmcclient.StatusError{Status: http.StatusBadRequest, Code: "IDRAC.2.8.SYS410", Message: "The password does not meet the password policy: it needs a special character."}
	}
	_, err := f.ensure(t, AccountInput{UserName: "alice", Role: keyset.Operator, Enable: true, PasswordSecret: keyset.SecretRef{Namespace: "n", Name: "s", Key: "password"}})
	ae := appError(t, err, ErrTypeRejected, false)
	assert.Contains(t, ae.Error(), "account slot 3 refused")
	assert.Contains(t, ae.Error(), "password policy")
	assert.NotContains(t, ae.Error(), "alice-Secret-1")
	assert.Equal(t, 1, f.patches)
}

// A collection BMC that can neither DELETE nor empty the account: an
// account with Enabled is disabled; one without says so and fails, it is
// never taken as already disabled.
func TestRemoveFallsBackToDisableOnlyWhereItCan(t *testing.T) {
	for _, noEnabled := range []bool{false, true} {
		alice := bmcclient.AccountInfo{ID: "7", URI: "/a/7", UserName: "alice", RoleID: "Operator", Enabled: true, NoEnabled: noEnabled}
		f := &vendorFake{fakeClient: newFake(), list: []bmcclient.AccountInfo{{ID: "1", URI: "/a/1", UserName: "root", Enabled: true, NoEnabled: noEnabled}, alice}}
		f.del = func(string, bmcclient.AccountPatch) error {
			return &bmcclient.StatusError{Status: http.StatusMethodNotAllowed, Message: "DELETE is not allowed"}
		}
		f.patch = func(_ string, p bmcclient.AccountPatch) error {
			if p.UserName != nil {
				return &bmcclient.StatusError{Status: http.StatusBadRequest, Code: "Base.1.0.PropertyValueFormatError", Message: "UserName must not be empty"}
			}
			require.False(t, noEnabled, "no Enabled is sent to an account without it")
			f.list[1].Enabled = false
			return nil
		}
		res, err := f.ensure(t, AccountInput{UserName: "alice"})
		if noEnabled {
			ae := appError(t, err, ErrTypeRejected, false)
			assert.Contains(t, ae.Error(), "neither removed")
			assert.Contains(t, ae.Error(), "still logs in")
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, AccountDisabled, res.Action)
		assert.Equal(t, []int{1, 2}, []int{f.delete, f.patches})
	}
}
