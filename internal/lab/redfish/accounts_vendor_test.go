package redfish_test

import (
	"net/http"
	"testing"

	"github.com/rackroll/rackroll/internal/lab/redfish/redfishtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// iLO 4's accounts (profile ilo4): no Enabled, no RoleId (a body with
// either refused 400 PropertyUnknown), the privileges under Oem.Hp, set
// by a POST or PATCH; removed by DELETE; the minimum password length
// under Oem.Hp only.
func TestILO4AccountsHaveNoEnabledNorRoleID(t *testing.T) {
	srv := redfishtest.Start(t, redfishtest.Profile("ilo4"))
	as := rawDo(t, srv.URL, http.MethodGet, "/redfish/v1/AccountService", "")
	assert.Nil(t, as.Body["MinPasswordLength"])
	assert.EqualValues(t, 8, as.Body["Oem"].(map[string]any)["Hp"].(map[string]any)["MinPasswordLength"])

	own := rawDo(t, srv.URL, http.MethodGet, "/redfish/v1/AccountService/Accounts/1", "").Body
	assert.NotContains(t, own, "Enabled")
	assert.NotContains(t, own, "RoleId")
	assert.Equal(t, true, own["Oem"].(map[string]any)["Hp"].(map[string]any)["Privileges"].(map[string]any)["UserConfigPriv"])

	r := rawDo(t, srv.URL, http.MethodPost, "/redfish/v1/AccountService/Accounts", `{"UserName":"alice","Password":"alice-Secret-1","RoleId":"Operator"}`)
	require.Equal(t, http.StatusBadRequest, r.StatusCode)
	assert.Contains(t, r.Body["error"].(map[string]any)["message"], "RoleId")
	r = rawDo(t, srv.URL, http.MethodPost, "/redfish/v1/AccountService/Accounts",
		`{"UserName":"alice","Password":"alice-Secret-1","Oem":{"Hp":{"Privileges":{"LoginPriv":true,"RemoteConsolePriv":true,"VirtualMediaPriv":true,"VirtualPowerAndResetPriv":true}}}}`)
	require.Equal(t, http.StatusCreated, r.StatusCode)
	require.NoError(t, login(srv.URL, "alice", "alice-Secret-1"), "an account without Enabled logs in")
	for _, a := range srv.BMC.Accounts() {
		if a.UserName == "alice" {
			assert.Equal(t, "Operator", a.RoleID, "the role its privileges stand for")
		}
	}
	uri := "/redfish/v1/AccountService/Accounts/2"
	assert.Equal(t, http.StatusBadRequest, rawDo(t, srv.URL, http.MethodPatch, uri, `{"Enabled":false}`).StatusCode, "it cannot be disabled")
	assert.Equal(t, http.StatusBadRequest, rawDo(t, srv.URL, http.MethodPatch, uri, `{"Password":"x"}`).StatusCode, "a password under the minimum")
	assert.Equal(t, http.StatusNoContent, rawDo(t, srv.URL, http.MethodDelete, uri, "").StatusCode)
	require.Error(t, login(srv.URL, "alice", "alice-Secret-1"), "deleted, it no longer logs in")
}
