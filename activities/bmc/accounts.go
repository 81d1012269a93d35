package bmc

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/keyset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// BMC accounts (docs/keysets.md, docs/keysets-bmc.md): EnsureAccount
// makes one BMC account of a BMC keyset what the keyset says — there,
// enabled, with the keyset's role and the password its Secret holds — or
// takes it away. BMCs keep accounts in two ways, told apart by what the
// collection lists (accounts_vendor.go): a fixed table of slots (iDRAC9),
// where a PATCH fills a free slot and another empties it, or a collection
// (iLO, OpenBMC, Supermicro), where POST makes an account and DELETE
// removes it. A 2xx is never the evidence: the account is read back, and
// the activity fails unless it shows the user name, the role and the
// enabled state asked for (or, removed, is gone).
//
// The password is read from the Kubernetes Secret the keyset names when
// the activity runs, checked against the BMC's AccountService rules
// before anything is sent; it is in no input, result, heartbeat or log,
// and is cut out of any error a BMC answers with.

// ErrTypeAccountLimit: non-retryable: the BMC has no room for one more
// account (its cap reached, or no empty slot that takes it).
const ErrTypeAccountLimit = "BMCAccountLimit"

// AccountInput asks for one account on one BMC.
type AccountInput struct {
	Endpoint
	// Keyset names the keyset the account belongs to, for messages.
	Keyset   string
	UserName string
	Role     keyset.Role
	// Enable: true makes the account exist, enabled, with Role and the
	// password PasswordSecret holds; false takes it away: deleted or its
	// slot freed, disabled only where the BMC can do neither (an absent
	// account is left absent).
	Enable         bool
	PasswordSecret keyset.SecretRef `json:",omitempty"`
}

// AccountResult is what was read back after the change.
type AccountResult struct {
	URI      string `json:",omitempty"` // "" when absent
	UserName string
	Role     string `json:",omitempty"`
	Enabled  bool
	// Action: created (POST), created-in-slot (PATCH of an empty slot),
	// updated (password, role, enabled set on an existing account),
	// deleted (DELETE), freed (its slot emptied), disabled (where the BMC
	// can do neither), already-disabled, absent (nothing to remove).
	Action string
}

// Actions an AccountResult reports.
const (
	AccountCreated         = "created"
	AccountCreatedInSlot   = "created-in-slot"
	AccountUpdated         = "updated"
	AccountDeleted         = "deleted"
	AccountFreed           = "freed"
	AccountDisabled        = "disabled"
	AccountAlreadyDisabled = "already-disabled"
	AccountAbsent          = "absent"
)

// checkAccountInput refuses bad input before anything is read or sent.
func checkAccountInput(in AccountInput) error {
	var bad []string
	if in.UserName == "" || len(in.UserName) > 16 {
		bad = append(bad, fmt.Sprintf("userName %q: 1 to 16 characters", in.UserName))
	}
	if in.Enable {
		if !slices.Contains([]keyset.Role{keyset.Administrator, keyset.Operator, keyset.ReadOnly}, in.Role) {
			bad = append(bad, fmt.Sprintf("role %q: one of Administrator, Operator, ReadOnly", in.Role))
		}
		if s := in.PasswordSecret; s.Namespace == "" || s.Name == "" || s.Key == "" {
			bad = append(bad, fmt.Sprintf("passwordSecret %s/%s key %q: a Secret's namespace, name and key are required to enable an account", s.Namespace, s.Name, s.Key))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("account %q of keyset %q: %s", in.UserName, in.Keyset, strings.Join(bad, "; "))
	}
	return nil
}

// EnsureAccount makes in.UserName on the endpoint's BMC what in asks.
func (a *Activities) EnsureAccount(ctx context.Context, in AccountInput) (AccountResult, error) {
	if err := checkAccountInput(in); err != nil {
		return AccountResult{}, temporalError(in.Endpoint, &stepError{"check the account", &failure{kindConfig, err.Error()}})
	}
	var pass string
	if in.Enable {
		var err error
		if pass, err = a.accountPassword(ctx, in.PasswordSecret); err != nil {
			return AccountResult{}, temporalError(in.Endpoint, &stepError{"read the account's password", err})
		}
	}
	res, err := perform(ctx, a, in.Endpoint, func(r *run) (AccountResult, error) {
		res, err := r.ensureAccount(in, pass)
		return res, scrub(err, pass)
	})
	return res, scrub(err, pass)
}

// accountPassword reads the password from its Secret; errors name the
// Secret and the key, never a value.
func (a *Activities) accountPassword(ctx context.Context, ref keyset.SecretRef) (string, error) {
	secrets := a.Secrets
	if sr, ok := a.resolver().(SecretResolver); secrets == nil && ok {
		secrets = sr.Secrets
	}
	id := ref.Namespace + "/" + ref.Name
	if secrets == nil {
		return "", &failure{kindConfig, "the account's password Secret " + id + " is read by the worker from the cluster that holds it, and this worker found none: " + NoManagementHint}
	}
	data, err := secrets(ctx, ref.Namespace, ref.Name)
	switch {
	case apierrors.IsNotFound(err):
		return "", &failure{kindConfig, "the account's password Secret " + id + " does not exist"}
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
		return "", &failure{kindConfig, fmt.Sprintf("the worker may not read the account's password Secret %s (%v): grant its ServiceAccount get on secrets in %s", id, err, ref.Namespace)}
	case err != nil:
		return "", &failure{kindTransient, fmt.Sprintf("read the account's password Secret %s: %v", id, err)}
	}
	pass := strings.TrimRight(string(data[ref.Key]), "\r\n")
	if pass == "" {
		return "", &failure{kindConfig, fmt.Sprintf("the account's password Secret %s has no key %q (or it is empty)", id, ref.Key)}
	}
	return pass, nil
}

// scrub cuts pass out of err's text, keeping its kind: a BMC may quote
// what it refused.
func scrub(err error, pass string) error {
	if err == nil || pass == "" || !strings.Contains(err.Error(), pass) {
		return err
	}
	return &failure{classify(err), strings.ReplaceAll(err.Error(), pass, "<redacted>")}
}

func (r *run) accounts() (bmcclient.AccountClient, []bmcclient.AccountInfo, error) {
	ac, ok := r.c.(bmcclient.AccountClient)
	if !ok {
		return nil, nil, &failure{kindConfig, "this BMC client has no AccountService support"}
	}
	list, err := read(r, "list the BMC's accounts", ac.Accounts)
	return ac, list, err
}

func (r *run) ensureAccount(in AccountInput, pass string) (AccountResult, error) {
	ac, list, err := r.accounts()
	if err != nil {
		return AccountResult{}, err
	}
	if strings.EqualFold(in.UserName, ac.LoginName()) {
		return AccountResult{}, &failure{kindConfig, fmt.Sprintf("account %q of keyset %q is the account rackroll logs in to this BMC with: a keyset never changes it", in.UserName, in.Keyset)}
	}
	shape := shapeOf(list)
	if in.Enable {
		// The BMC's rules are read before anything is sent: a password
		// they refuse is named once, not tried in every slot.
		rules, err := read(r, "read the BMC's password rules", ac.AccountRules)
		if err != nil {
			return AccountResult{}, err
		}
		if err := checkPassword(pass, rules, in); err != nil {
			return AccountResult{}, err
		}
	}
	cur, found := findAccount(list, in.UserName)
	action := ""
	switch {
	case !in.Enable && !found:
		return AccountResult{UserName: in.UserName, Action: AccountAbsent}, nil
	case !in.Enable:
		action, err = r.removeAccount(ac, list, cur, in)
	case found:
		// The password cannot be read back: it is sent on every apply,
		// with the role and Enabled in one PATCH (iDRAC refuses a PATCH
		// of the role without it: ironcore-dev/metal-operator#946).
		action = AccountUpdated
		err = r.withRole(&shape, func(s accountShape) error {
			return r.retry("update account "+in.UserName, func() error {
				return ac.PatchAccount(r.ctx, cur.URI, wantPatch(in, pass, false, s), cur.ETag)
			})
		})
	default:
		action, err = r.createAccount(ac, list, &shape, in, pass)
	}
	if err != nil {
		return AccountResult{}, err
	}
	return r.readBackAccount(in, shape, action)
}

// wantPatch is the body that makes an account what in asks: its role as
// RoleId or, where s says so, the vendor's privileges; Enabled where the
// BMC's accounts have it.
func wantPatch(in AccountInput, pass string, withName bool, s accountShape) bmcclient.AccountPatch {
	p := bmcclient.AccountPatch{Password: &pass}
	if s.privileges {
		p.Oem = &bmcclient.AccountOem{Vendor: s.vendor, Privileges: vendorPrivileges(in.Role)}
	} else {
		role := string(in.Role)
		p.RoleID = &role
	}
	if s.enabled {
		on := true
		p.Enabled = &on
	}
	if withName {
		p.UserName = &in.UserName
	}
	return p
}

// withRole sends with RoleId and, when the BMC refuses RoleId and shows
// its own privileges, once more with those (s then says so, for the
// read-back).
func (r *run) withRole(s *accountShape, send func(accountShape) error) error {
	err := send(*s)
	if err != nil && !s.privileges && s.vendor != "" && roleRefused(err) {
		r.heartbeat("the BMC refuses RoleId: sending its own privileges")
		s.privileges = true
		err = send(*s)
	}
	return err
}

// findAccount finds name among the accounts; BMCs compare names without
// case.
func findAccount(list []bmcclient.AccountInfo, name string) (bmcclient.AccountInfo, bool) {
	for _, a := range list {
		if a.UserName != "" && strings.EqualFold(a.UserName, name) {
			return a, true
		}
	}
	return bmcclient.AccountInfo{}, false
}

// accountIs is a done check for act: the BMC shows name and ok holds.
func (r *run) accountIs(name string, ok func(bmcclient.AccountInfo) bool) func() (bool, error) {
	return func() (bool, error) {
		_, list, err := r.accounts()
		if err != nil {
			return false, err
		}
		a, found := findAccount(list, name)
		return found && ok(a), nil
	}
}
