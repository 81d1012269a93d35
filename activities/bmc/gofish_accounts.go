package bmc

import (
	"context"

	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

// AccountClient is the AccountService slice the BMC account activity uses
// (accounts.go). It is apart from Client so that the activities that never
// touch accounts, and their fakes, do not carry it; the gofish client
// implements both.
type AccountClient interface {
	// LoginName is the user the client logged in as: the account rackroll
	// itself uses, which a keyset never touches.
	LoginName() string
	// Accounts lists the AccountService's accounts (a GET per member), in
	// collection order; on a slot-based BMC empty slots too.
	Accounts(ctx context.Context) ([]AccountInfo, error)
	// CreateAccount POSTs p to the Accounts collection.
	CreateAccount(ctx context.Context, p AccountPatch) error
	// PatchAccount PATCHes p to one account, with If-Match: etag when the
	// account showed one.
	PatchAccount(ctx context.Context, uri string, p AccountPatch, etag string) error
}

// AccountInfo is what the activity reads of one ManagerAccount.
type AccountInfo struct {
	URI, ID, UserName, RoleID string
	Enabled                   bool
	ETag                      string
}

// AccountPatch is a ManagerAccount body; nil fields are not sent. String
// hides the password so a stray %v cannot log it.
type AccountPatch struct {
	UserName *string `json:"UserName,omitempty"`
	Password *string `json:"Password,omitempty"`
	RoleID   *string `json:"RoleId,omitempty"`
	Enabled  *bool   `json:"Enabled,omitempty"`
}

func (p AccountPatch) String() string {
	s := "AccountPatch{"
	if p.UserName != nil {
		s += " UserName:" + *p.UserName
	}
	if p.Password != nil {
		s += " Password:<redacted>"
	}
	if p.RoleID != nil {
		s += " RoleId:" + *p.RoleID
	}
	if p.Enabled != nil {
		s += map[bool]string{true: " Enabled:true", false: " Enabled:false"}[*p.Enabled]
	}
	return s + " }"
}

// GoString is String: %#v must not print the password either.
func (p AccountPatch) GoString() string { return p.String() }

func (c *gofishClient) LoginName() string { return c.creds.Username }

func accountService(api *gofish.APIClient) (*schemas.AccountService, error) {
	as, err := api.Service.AccountService()
	if err == nil && as == nil {
		err = &failure{kindRejected, "the BMC offers no AccountService"}
	}
	return as, err
}

func (c *gofishClient) Accounts(ctx context.Context) ([]AccountInfo, error) {
	var out []AccountInfo
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
			out = append(out, AccountInfo{URI: a.ODataID, ID: a.ID, UserName: a.UserName, RoleID: a.RoleID, Enabled: a.Enabled, ETag: a.ODataEtag})
		}
		return nil
	})
	return out, err
}

func (c *gofishClient) CreateAccount(ctx context.Context, p AccountPatch) error {
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

func (c *gofishClient) PatchAccount(ctx context.Context, uri string, p AccountPatch, etag string) error {
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
