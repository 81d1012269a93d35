package gofishclient

import (
	"encoding/json"
	"testing"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stmcginnis/gofish/schemas"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gofish decodes an absent Enabled as false and keeps no Oem: the raw
// JSON says which it was, and the vendor's privileges.
func TestAccountInfoTellsAbsentEnabledFromFalse(t *testing.T) {
	decode := func(body string) bmcclient.AccountInfo {
		var a schemas.ManagerAccount
		require.NoError(t, json.Unmarshal([]byte(body), &a))
		return accountInfo(&a)
	}
	ilo := decode(`{"@odata.id":"/redfish/v1/AccountService/Accounts/3","Id":"3","UserName":"alice",
		"Oem":{"Hp":{"LoginName":"alice","Privileges":{"LoginPriv":true,"UserConfigPriv":false}}}}`)
	assert.Equal(t, []any{true, true, "Hp"}, []any{ilo.Enabled, ilo.NoEnabled, ilo.OemVendor})
	assert.Equal(t, map[string]bool{"LoginPriv": true, "UserConfigPriv": false}, ilo.Privileges)
	off := decode(`{"@odata.id":"/a/4","Id":"4","UserName":"bob","RoleId":"Operator","Enabled":false}`)
	assert.Equal(t, []any{false, false, ""}, []any{off.Enabled, off.NoEnabled, off.OemVendor})
}

func TestServiceRulesReadDMTFsAndHPEsProperties(t *testing.T) {
	r, s := serviceRules([]byte(`{"MinPasswordLength":8,"MaxPasswordLength":20,"AccountLockoutThreshold":5,"AccountLockoutDuration":30,
		"Accounts":{"@odata.id":"/redfish/v1/AccountService/Accounts"}}`))
	assert.Equal(t, bmcclient.AccountRules{MinPasswordLength: 8, MaxPasswordLength: 20, LockoutThreshold: 5, LockoutDuration: 30}, r)
	assert.Equal(t, "/redfish/v1/AccountService/Accounts", s.Accounts.ID)
	r, _ = serviceRules([]byte(`{"Oem":{"Hp":{"MinPasswordLength":10}}}`))
	assert.Equal(t, bmcclient.AccountRules{MinPasswordLength: 10}, r, "iLO 4 keeps its minimum under Oem")
}
