package bmcclient

import "context"

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
