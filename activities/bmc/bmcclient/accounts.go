package bmcclient

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// AccountClient is the AccountService slice the BMC account activity
// uses. It is apart from Client so that the activities that never touch
// accounts, and their fakes, do not carry it; a Client that has it
// implements both.
type AccountClient interface {
	// LoginName is the user the client logged in as: the account rackroll
	// itself uses, which a keyset never touches.
	LoginName() string
	// Accounts lists the AccountService's accounts (a GET per member), in
	// collection order; on a slot-based BMC empty slots too.
	Accounts(ctx context.Context) ([]AccountInfo, error)
	// AccountRules reads the AccountService's password and lockout rules.
	AccountRules(ctx context.Context) (AccountRules, error)
	// CreateAccount POSTs p to the Accounts collection.
	CreateAccount(ctx context.Context, p AccountPatch) error
	// PatchAccount PATCHes p to one account, with If-Match: etag when the
	// account showed one.
	PatchAccount(ctx context.Context, uri string, p AccountPatch, etag string) error
	// DeleteAccount DELETEs one account, with If-Match as PatchAccount.
	DeleteAccount(ctx context.Context, uri, etag string) error
}

// AccountInfo is what the activity reads of one ManagerAccount.
type AccountInfo struct {
	URI, ID, UserName, RoleID string
	// Enabled is the account's Enabled, or true where it shows none
	// (NoEnabled): an iLO account has no such property and logs in for as
	// long as it exists, so absent is not false.
	Enabled   bool
	NoEnabled bool
	// OemVendor and Privileges: the vendor's own privileges
	// (Oem.<OemVendor>.Privileges, HPE's), where the account shows them.
	OemVendor  string
	Privileges map[string]bool
	ETag       string
}

// AccountRules are the AccountService's rules for passwords and lockout;
// 0 where the BMC shows none.
type AccountRules struct {
	MinPasswordLength, MaxPasswordLength int
	// LockoutThreshold failed logins lock an account for LockoutDuration
	// seconds.
	LockoutThreshold, LockoutDuration int
}

// AccountPatch is a ManagerAccount body; nil fields are not sent. String
// hides the password so a stray %v cannot log it.
type AccountPatch struct {
	UserName *string     `json:"UserName,omitempty"`
	Password *string     `json:"Password,omitempty"`
	RoleID   *string     `json:"RoleId,omitempty"`
	Enabled  *bool       `json:"Enabled,omitempty"`
	Oem      *AccountOem `json:"Oem,omitempty"`
}

// AccountOem is a vendor's privileges in place of RoleId: sent as
// {"Oem": {Vendor: {"Privileges": {...}}}} (HPE iLO 4, which refuses
// RoleId).
type AccountOem struct {
	Vendor     string
	Privileges map[string]bool
}

func (o AccountOem) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{o.Vendor: map[string]any{"Privileges": o.Privileges}})
}

func (p AccountPatch) String() string {
	s := "AccountPatch{"
	if p.UserName != nil {
		s += " UserName:" + strconv.Quote(*p.UserName)
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
	if p.Oem != nil {
		var on []string
		for k, v := range p.Oem.Privileges {
			if v {
				on = append(on, k)
			}
		}
		sort.Strings(on)
		s += " Oem." + p.Oem.Vendor + ".Privileges:" + strconv.Quote(strings.Join(on, ","))
	}
	return s + " }"
}

// GoString is String: %#v must not print the password either.
func (p AccountPatch) GoString() string { return p.String() }
