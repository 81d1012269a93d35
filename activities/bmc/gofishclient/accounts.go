package gofishclient

import (
	"context"
	"encoding/json"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

func (c *client) LoginName() string { return c.creds.Username }

func accountService(api *gofish.APIClient) (*schemas.AccountService, error) {
	as, err := api.Service.AccountService()
	if err == nil && as == nil {
		err = rejected("the BMC offers no AccountService")
	}
	return as, err
}

// rawAccount is what gofish's ManagerAccount cannot say: it decodes an
// absent Enabled as false (an iLO account has none and logs in), and
// keeps no Oem. Read from the account's raw JSON.
type rawAccount struct {
	Enabled *bool
	Oem     map[string]struct {
		Privileges map[string]bool
	}
}

// accountInfo is one account as the activity reads it.
func accountInfo(a *schemas.ManagerAccount) bmcclient.AccountInfo {
	info := bmcclient.AccountInfo{URI: a.ODataID, ID: a.ID, UserName: a.UserName, RoleID: a.RoleID, Enabled: a.Enabled, ETag: a.ODataEtag}
	var raw rawAccount
	if json.Unmarshal(a.RawData, &raw) != nil {
		return info
	}
	if raw.Enabled == nil {
		info.Enabled, info.NoEnabled = true, true
	}
	for vendor, o := range raw.Oem {
		if o.Privileges != nil {
			info.OemVendor, info.Privileges = vendor, o.Privileges
		}
	}
	return info
}

func (c *client) Accounts(ctx context.Context) ([]bmcclient.AccountInfo, error) {
	var out []bmcclient.AccountInfo
	err := c.call(ctx, func(api *gofish.APIClient) error {
		out = nil
		as, err := accountService(api)
		if err != nil {
			return err
		}
		accounts, err := as.Accounts()
		if err != nil {
			return err
		}
		for _, a := range accounts {
			out = append(out, accountInfo(a))
		}
		return nil
	})
	return out, err
}

// rawService holds what the AccountService shows of its rules: DMTF's
// properties, and HPE's Oem MinPasswordLength (iLO 4 and 5 keep it there:
// HewlettPackard/ilo-rest-api-docs, AccountService Oem.Hpe).
type rawService struct {
	MinPasswordLength, MaxPasswordLength            *int
	AccountLockoutThreshold, AccountLockoutDuration *int
	Accounts                                        struct {
		ID string `json:"@odata.id"`
	}
	Oem map[string]struct {
		MinPasswordLength *int
	}
}

func serviceRules(raw []byte) (bmcclient.AccountRules, rawService) {
	var s rawService
	var r bmcclient.AccountRules
	if json.Unmarshal(raw, &s) != nil {
		return r, s
	}
	val := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	r.MinPasswordLength, r.MaxPasswordLength = val(s.MinPasswordLength), val(s.MaxPasswordLength)
	r.LockoutThreshold, r.LockoutDuration = val(s.AccountLockoutThreshold), val(s.AccountLockoutDuration)
	for _, o := range s.Oem {
		if s.MinPasswordLength == nil && o.MinPasswordLength != nil {
			r.MinPasswordLength = *o.MinPasswordLength
		}
	}
	return r, s
}

func (c *client) AccountRules(ctx context.Context) (bmcclient.AccountRules, error) {
	var out bmcclient.AccountRules
	err := c.call(ctx, func(api *gofish.APIClient) error {
		as, err := accountService(api)
		if err != nil {
			return err
		}
		out, _ = serviceRules(as.RawData)
		return nil
	})
	return out, err
}

// CreateAccount POSTs p as it is (gofish's CreateAccountParams has no Oem,
// which a BMC refusing RoleId needs).
func (c *client) CreateAccount(ctx context.Context, p bmcclient.AccountPatch) error {
	return c.call(ctx, func(api *gofish.APIClient) error {
		as, err := accountService(api)
		if err != nil {
			return err
		}
		_, s := serviceRules(as.RawData)
		uri := s.Accounts.ID
		if uri == "" {
			uri = as.ODataID + "/Accounts"
		}
		resp, err := api.Post(uri, p)
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return err
	})
}

func ifMatch(etag string) map[string]string {
	if etag == "" {
		return nil
	}
	return map[string]string{"If-Match": etag}
}

func (c *client) PatchAccount(ctx context.Context, uri string, p bmcclient.AccountPatch, etag string) error {
	return c.call(ctx, func(api *gofish.APIClient) error {
		resp, err := api.PatchWithHeaders(uri, p, ifMatch(etag))
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return err
	})
}

func (c *client) DeleteAccount(ctx context.Context, uri, etag string) error {
	return c.call(ctx, func(api *gofish.APIClient) error {
		resp, err := api.DeleteWithHeaders(uri, ifMatch(etag))
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return err
	})
}
