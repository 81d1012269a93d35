package gofishclient

import (
	"context"

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
			out = append(out, bmcclient.AccountInfo{URI: a.ODataID, ID: a.ID, UserName: a.UserName, RoleID: a.RoleID, Enabled: a.Enabled, ETag: a.ODataEtag})
		}
		return nil
	})
	return out, err
}

func (c *client) CreateAccount(ctx context.Context, p bmcclient.AccountPatch) error {
	return c.call(ctx, func(api *gofish.APIClient) error {
		as, err := accountService(api)
		if err != nil {
			return err
		}
		params := &schemas.CreateAccountParameters{Enabled: p.Enabled}
		if p.UserName != nil {
			params.UserName = *p.UserName
		}
		if p.Password != nil {
			params.Password = *p.Password
		}
		if p.RoleID != nil {
			params.RoleID = *p.RoleID
		}
		_, err = as.CreateAccountParams(params)
		return err
	})
}

func (c *client) PatchAccount(ctx context.Context, uri string, p bmcclient.AccountPatch, etag string) error {
	return c.call(ctx, func(api *gofish.APIClient) error {
		var h map[string]string
		if etag != "" {
			h = map[string]string{"If-Match": etag}
		}
		resp, err := api.PatchWithHeaders(uri, p, h)
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return err
	})
}
