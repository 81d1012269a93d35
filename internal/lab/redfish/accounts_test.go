package redfish_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
	"github.com/stretchr/testify/require"
)

// The AccountService through gofish, as a BMC keyset will use it, on a
// BMC that creates accounts by POST (iLO 5): the BMC's own account is
// listed and protected; an account is created with a
// role, read back, logs in with its password, is disabled (and no longer
// logs in), is deleted; the cap on accounts refuses one more; bad input is
// refused without quoting the password; GET never renders one.
func TestGofishAccountService(t *testing.T) {
	srv := redfishtest.Start(t, redfishtest.Profile("ilo5"), func(c *redfish.Config) { c.AccountLimit = 3 })
	c := connect(t, srv.URL, false)
	as, err := c.Service.AccountService()
	require.NoError(t, err)
	require.EqualValues(t, 8, as.MinPasswordLength)
	roles, err := as.Roles()
	require.NoError(t, err)
	require.Len(t, roles, 3)
	accounts, err := as.Accounts()
	require.NoError(t, err)
	require.Len(t, accounts, 1)
	require.Equal(t, redfishtest.Username, accounts[0].UserName)
	require.Equal(t, "Administrator", accounts[0].RoleID)

	const alicePass = "alice-Secret-1"
	alice, err := as.CreateAccount("alice", alicePass, "Operator")
	require.NoError(t, err)
	got, err := schemas.GetManagerAccount(c, alice.ODataID)
	require.NoError(t, err)
	require.Equal(t, "alice", got.UserName)
	require.Equal(t, "Operator", got.RoleID)
	require.True(t, got.Enabled)
	role, err := got.Role()
	require.NoError(t, err)
	require.Equal(t, "Operator", role.ID)
	require.True(t, srv.BMC.AccountPasswordIs("alice", alicePass))
	require.NoError(t, login(srv.URL, "alice", alicePass))
	require.Error(t, login(srv.URL, "alice", "wrong-password"))

	// Refusals: a name taken (without case), an unknown role, a password
	// too short (not quoted), the cap.
	_, err = as.CreateAccount("ALICE", alicePass, "Operator")
	require.ErrorContains(t, err, "ResourceAlreadyExists")
	_, err = as.CreateAccount("bob", "bob-Secret-1", "Root")
	require.ErrorContains(t, err, "PropertyValueNotInList")
	_, err = as.CreateAccount("bob", "short!", "ReadOnly")
	require.ErrorContains(t, err, "PropertyValueFormatError")
	require.NotContains(t, err.Error(), "short!")
	_, err = as.CreateAccount("bob", "bob-Secret-1", "ReadOnly")
	require.NoError(t, err)
	_, err = as.CreateAccount("carol", "carol-Secret-1", "ReadOnly")
	require.ErrorContains(t, err, "CreateLimitReachedForResource")

	// Disabled: still there with its role, no longer logs in.
	got.Enabled = false
	require.NoError(t, got.Update())
	got, err = schemas.GetManagerAccount(c, alice.ODataID)
	require.NoError(t, err)
	require.False(t, got.Enabled)
	require.Error(t, login(srv.URL, "alice", alicePass))

	// The BMC's own account is not a keyset's.
	own, err := schemas.GetManagerAccount(c, accounts[0].ODataID)
	require.NoError(t, err)
	own.Enabled = false
	require.ErrorContains(t, own.Update(), "ActionNotSupported")
	require.ErrorContains(t, del(c, accounts[0].ODataID), "ActionNotSupported")

	// GET never renders a password.
	raw := getRaw(t, c, alice.ODataID)
	require.NotContains(t, raw, alicePass)
	var d map[string]any
	require.NoError(t, json.Unmarshal([]byte(raw), &d))
	require.Contains(t, d, "Password")
	require.Nil(t, d["Password"])

	// Deleted: a slot is free again.
	require.NoError(t, del(c, alice.ODataID))
	_, err = schemas.GetManagerAccount(c, alice.ODataID)
	require.ErrorContains(t, err, "404")
	_, err = as.CreateAccount("carol", "carol-Secret-1", "ReadOnly")
	require.NoError(t, err)
	var names []string
	for _, a := range srv.BMC.Accounts() {
		names = append(names, a.UserName+":"+a.RoleID)
	}
	require.Equal(t, []string{redfishtest.Username + ":Administrator", "bob:ReadOnly", "carol:ReadOnly"}, names)
}

// login opens (and closes) a session as user.
func login(url, user, pass string) error {
	c, err := gofish.Connect(gofish.ClientConfig{Endpoint: url, Username: user, Password: pass, Insecure: true})
	if err != nil {
		return err
	}
	c.Logout()
	return nil
}

func getRaw(t *testing.T, c *gofish.APIClient, uri string) string {
	t.Helper()
	resp, err := c.Get(uri)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, strings.TrimSpace(string(b)))
	return string(b)
}

func del(c *gofish.APIClient, uri string) error {
	resp, err := c.Delete(uri)
	if resp != nil {
		resp.Body.Close()
	}
	return err
}
