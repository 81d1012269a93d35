package bmc

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
)

var _ bmcclient.AccountClient = (*fakeAccounts)(nil)

// fakeAccounts is a BMC whose collection lists only used slots and answers
// a POST 405: the activity falls back to the slot PATCH, finds no empty
// slot, and says the BMC is full.
type fakeAccounts struct {
	*fakeClient
	list  []bmcclient.AccountInfo
	posts int
}

func (f *fakeAccounts) LoginName() string { return "root" }
func (f *fakeAccounts) Accounts(context.Context) ([]bmcclient.AccountInfo, error) {
	return f.list, nil
}
func (f *fakeAccounts) AccountRules(context.Context) (bmcclient.AccountRules, error) {
	return bmcclient.AccountRules{MinPasswordLength: 8}, nil
}
func (f *fakeAccounts) DeleteAccount(context.Context, string, string) error {
	panic("no account should be deleted")
}
func (f *fakeAccounts) CreateAccount(context.Context, bmcclient.AccountPatch) error {
	f.posts++
	return &bmcclient.StatusError{Status: http.StatusMethodNotAllowed, Message: "POST is not allowed"}
}
func (f *fakeAccounts) PatchAccount(context.Context, string, bmcclient.AccountPatch, string) error {
	panic("no slot should be patched: none is empty")
}

func TestAccountPostRefused405FallsBackToSlotsAndReportsFull(t *testing.T) {
	f := &fakeAccounts{fakeClient: newFake(), list: []bmcclient.AccountInfo{
		{URI: "/redfish/v1/AccountService/Accounts/2", ID: "2", UserName: "root", RoleID: "Administrator", Enabled: true},
		{URI: "/redfish/v1/AccountService/Accounts/3", ID: "3", UserName: "carol", RoleID: "ReadOnly", Enabled: true},
	}}
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
	_, err := env.ExecuteActivity(a.EnsureAccount, AccountInput{Endpoint: testEndpoint, Keyset: "k", UserName: "alice",
		Role: keyset.Operator, Enable: true, PasswordSecret: keyset.SecretRef{Namespace: "n", Name: "s", Key: "password"}})
	ae := appError(t, err, ErrTypeAccountLimit, false)
	assert.Contains(t, ae.Error(), "no empty account slot")
	assert.Contains(t, ae.Error(), "rack1-c1")
	assert.Equal(t, 1, f.posts, "a 405 is not retried")
}

func TestFindAccountAndEmptySlots(t *testing.T) {
	list := []bmcclient.AccountInfo{{ID: "1"}, {ID: "2", UserName: "root"}, {ID: "3", UserName: "Alice"}, {ID: "4"}}
	a, ok := findAccount(list, "alice")
	require.True(t, ok, "BMCs compare names without case")
	assert.Equal(t, "3", a.ID)
	_, ok = findAccount(list, "")
	assert.False(t, ok, "an empty slot is nobody's account")
	var ids []string
	for _, s := range emptySlots(list) {
		ids = append(ids, s.ID)
	}
	assert.Equal(t, []string{"4"}, ids, "slot 1 is iDRAC's reserved one, skipped by id")
}
