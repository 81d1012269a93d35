package redfish

import (
	"crypto/subtle"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The AccountService (DSP0268 AccountService, ManagerAccount, Role): what
// a BMC keyset is applied through (docs/keysets.md). Two shapes, per
// profile (Profile.AccountSlots): a collection that grows, where POST
// creates an account (this file), and a fixed set of slots, where a PATCH
// of an empty slot does (accounts_slots.go). The BMC holds at most
// Config.AccountLimit accounts, its own (the one the lab's inventory logs
// in with, id 1, or slot 2) included; that one cannot be deleted, disabled,
// renamed or given another role. An enabled account logs in with its password
// (sessions and, where the profile allows, basic auth). Roles are not
// enforced on requests: the lab checks who may log in, not what each
// role may do. A password is never rendered ("Password": null) and never
// quoted in an error.

const (
	accountServicePath = rootPath + "/AccountService"
	accountsPath       = accountServicePath + "/Accounts"
	rolesPath          = accountServicePath + "/Roles"

	// DefaultAccountLimit is an iDRAC's: 16 account slots.
	DefaultAccountLimit = 16
	minPasswordLength   = 8
	maxPasswordLength   = 40
)

var roleIDs = []string{"Administrator", "Operator", "ReadOnly"}

// Account is one BMC account as a test reads it back; the password stays
// inside the BMC (AccountPasswordIs checks one).
type Account struct {
	ID, UserName, RoleID string
	Enabled, BuiltIn     bool
	// Privileges: the vendor's (Profile.Accounts.NoRoleID), for which
	// RoleID is the role they stand for.
	Privileges map[string]bool `json:",omitempty"`
}

type account struct {
	Account
	password string
	// reserved: a slot no request may fill (iDRAC's slot 1).
	reserved bool
}

// accountsLocked is the account list, the BMC's own account first (on a
// slot-based BMC: every slot in order).
func (b *BMC) accountsLocked() []*account {
	if len(b.accounts) == 0 && b.prof.AccountSlots > 0 {
		b.accounts = b.slotsLocked()
	}
	if len(b.accounts) == 0 {
		b.accounts = []*account{{Account: Account{ID: "1", UserName: b.cfg.Username, RoleID: "Administrator", Enabled: true, BuiltIn: true}, password: b.cfg.Password}}
		b.accountSeq = 1
		if b.prof.Accounts.NoRoleID {
			b.accounts[0].Privileges = privilegesOf("Administrator")
		}
	}
	return b.accounts
}

func (b *BMC) accountLimit() int {
	switch {
	case b.cfg.AccountLimit > 0:
		return b.cfg.AccountLimit
	case b.prof.AccountSlots > 0:
		return b.prof.AccountSlots
	}
	return DefaultAccountLimit
}

// Accounts lists the BMC's accounts, its own first.
func (b *BMC) Accounts() []Account {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Account
	for _, a := range b.accountsLocked() {
		c := a.Account
		c.Privileges = maps.Clone(a.Privileges)
		out = append(out, c)
	}
	return out
}

// AccountPasswordIs reports whether user's password is pass.
func (b *BMC) AccountPasswordIs(user, pass string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range b.accountsLocked() {
		if a.UserName == user {
			return subtle.ConstantTimeCompare([]byte(a.password), []byte(pass)) == 1
		}
	}
	return false
}

// accountLoginLocked: an enabled account other than the BMC's own (which
// credentialsMatch checks) with this user name and password. An empty
// slot, or one given a name but no password yet, never logs in.
func (b *BMC) accountLoginLocked(user, pass string) bool {
	if user == "" || pass == "" {
		return false
	}
	for _, a := range b.accountsLocked() {
		if !a.BuiltIn && a.Enabled && a.password != "" && a.UserName == user && subtle.ConstantTimeCompare([]byte(a.password), []byte(pass)) == 1 {
			return true
		}
	}
	return false
}

func (b *BMC) routeAccounts(w http.ResponseWriter, r *http.Request, p string) {
	switch {
	case p == accountServicePath:
		b.get(w, r, func() doc {
			d := doc{"@odata.id": accountServicePath, "@odata.type": "#AccountService.v1_5_0.AccountService",
				"Id": "AccountService", "Name": "Account Service", "ServiceEnabled": true,
				"Accounts": link(accountsPath), "Roles": link(rolesPath)}
			b.prof.Accounts.serviceRules(d)
			return d
		})
	case p == accountsPath:
		h := handlers{http.MethodGet: func() {
			b.mu.Lock()
			var ids []string
			for _, a := range b.accountsLocked() {
				ids = append(ids, accountsPath+"/"+a.ID)
			}
			b.mu.Unlock()
			writeJSON(w, http.StatusOK, collection(accountsPath, "ManagerAccountCollection", "Accounts Collection", ids...))
		}}
		// A slot-based BMC has no POST here: 405 with Allow: GET.
		if b.prof.AccountSlots == 0 {
			h[http.MethodPost] = func() { b.postAccount(w, r) }
		}
		dispatch(w, r, h)
	case p == rolesPath:
		var ids []string
		for _, id := range roleIDs {
			ids = append(ids, rolesPath+"/"+id)
		}
		b.get(w, r, func() doc { return collection(rolesPath, "RoleCollection", "Roles Collection", ids...) })
	case strings.HasPrefix(p, rolesPath+"/") && slices.Contains(roleIDs, strings.TrimPrefix(p, rolesPath+"/")):
		id := strings.TrimPrefix(p, rolesPath+"/")
		b.get(w, r, func() doc {
			return doc{"@odata.id": p, "@odata.type": "#Role.v1_3_0.Role", "Id": id, "Name": id, "RoleId": id, "IsPredefined": true}
		})
	case strings.HasPrefix(p, accountsPath+"/"):
		b.account(w, r, strings.TrimPrefix(p, accountsPath+"/"))
	default:
		notFound(w, r)
	}
}

func (b *BMC) accountDoc(a *account) doc {
	d := doc{"@odata.id": accountsPath + "/" + a.ID, "@odata.type": "#ManagerAccount.v1_7_0.ManagerAccount",
		"Id": a.ID, "Name": "User Account", "UserName": a.UserName, "RoleId": a.RoleID, "Enabled": a.Enabled,
		"Locked": false, "Password": nil, "AccountTypes": []string{"Redfish"}}
	// An empty slot's role is "None", which no Role resource stands for.
	if slices.Contains(roleIDs, a.RoleID) {
		d["Links"] = doc{"Role": link(rolesPath + "/" + a.RoleID)}
	}
	b.prof.Accounts.shape(d, a)
	return d
}

// accountBody is what POST and PATCH may carry.
type accountBody struct {
	UserName, Password, RoleID *string
	Enabled                    *bool
	Oem                        map[string]oemAccount
}

type oemAccount struct{ Privileges map[string]bool }

func (a *accountBody) decode(r *http.Request) *apiError {
	var raw struct {
		UserName *string
		Password *string
		RoleID   *string `json:"RoleId"`
		Enabled  *bool
		Oem      map[string]oemAccount
	}
	if e := decodeBody(r, &raw); e != nil {
		return e
	}
	*a = accountBody{raw.UserName, raw.Password, raw.RoleID, raw.Enabled, raw.Oem}
	return nil
}

// checkAccountLocked refuses a bad role or password and a user name another
// account has (BMCs compare them without case); self is the account
// patched ("" on create).
func (b *BMC) checkAccountLocked(body accountBody, self string) *apiError {
	b.accountWrites++
	if e := b.prof.Accounts.refuse(body); e != nil {
		return e
	}
	if body.RoleID != nil && !slices.Contains(roleIDs, *body.RoleID) {
		return &apiError{http.StatusBadRequest, "PropertyValueNotInList", "The value " + strconv.Quote(*body.RoleID) + " for the property RoleId is not in the list of acceptable values: " + strings.Join(roleIDs, ", ") + "."}
	}
	if body.Password != nil {
		if e := b.prof.Accounts.passwordRefusal(*body.Password); e != nil {
			return e
		}
	}
	if body.UserName != nil {
		// On a slot-based BMC an empty name frees the slot
		// (dell/iDRAC-Redfish-Scripting#288).
		if *body.UserName == "" && b.prof.AccountSlots > 0 && self != "" {
			return nil
		}
		if *body.UserName == "" || len(*body.UserName) > 16 {
			return &apiError{http.StatusBadRequest, "PropertyValueFormatError", "The value " + strconv.Quote(*body.UserName) + " for the property UserName is not in a format that the property can accept: 1 to 16 characters."}
		}
		for _, o := range b.accountsLocked() {
			if o.ID != self && strings.EqualFold(o.UserName, *body.UserName) {
				return &apiError{http.StatusConflict, "ResourceAlreadyExists", "The requested resource already exists: account " + o.ID + " has the user name " + strconv.Quote(o.UserName) + "."}
			}
		}
	}
	return nil
}

func (b *BMC) postAccount(w http.ResponseWriter, r *http.Request) {
	var body accountBody
	if e := body.decode(r); e != nil {
		writeError(w, e)
		return
	}
	for _, p := range []struct {
		name string
		v    *string
	}{{"UserName", body.UserName}, {"Password", body.Password}, {"RoleId", body.RoleID}} {
		if p.v == nil && (p.name != "RoleId" || !b.prof.Accounts.NoRoleID) {
			writeError(w, &apiError{http.StatusBadRequest, "PropertyMissing", "The property " + p.name + " is a required property and must be included in the request."})
			return
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if e := b.checkAccountLocked(body, ""); e != nil {
		writeError(w, e)
		return
	}
	if len(b.accountsLocked()) >= b.accountLimit() {
		writeError(w, &apiError{http.StatusBadRequest, "CreateLimitReachedForResource", "The create operation failed because the resource has reached the limit of possible resources: " + strconv.Itoa(b.accountLimit()) + " accounts."})
		return
	}
	b.accountSeq++
	a := &account{Account: Account{ID: strconv.Itoa(b.accountSeq), UserName: *body.UserName, Enabled: body.Enabled == nil || *body.Enabled}, password: *body.Password}
	if body.RoleID != nil {
		a.RoleID = *body.RoleID
	}
	if b.prof.Accounts.NoRoleID {
		// iLO 4 gives an account made without privileges a login only.
		a.Privileges = privilegesOf("ReadOnly")
		b.setPrivileges(a, body)
	}
	b.accounts = append(b.accounts, a)
	w.Header().Set("Location", accountsPath+"/"+a.ID)
	writeJSON(w, http.StatusCreated, b.accountDoc(a))
}

// account serves one account. Each method finds it again under the lock:
// another request may have deleted it meanwhile.
func (b *BMC) account(w http.ResponseWriter, r *http.Request, id string) {
	builtIn := &apiError{http.StatusBadRequest, "ActionNotSupported", "Account " + id + " is the BMC's own account: it cannot be deleted, disabled, renamed or given another role."}
	reserved := &apiError{http.StatusBadRequest, "ActionNotSupported", "Account " + id + " is reserved: it cannot be given a user."}
	locked := func(f func(i int, a *account)) {
		b.mu.Lock()
		defer b.mu.Unlock()
		i := slices.IndexFunc(b.accountsLocked(), func(a *account) bool { return a.ID == id })
		if i < 0 {
			notFound(w, r)
			return
		}
		f(i, b.accounts[i])
	}
	h := handlers{
		http.MethodGet: func() { locked(func(_ int, a *account) { writeJSON(w, http.StatusOK, b.accountDoc(a)) }) },
		http.MethodPatch: func() {
			var body accountBody
			if e := body.decode(r); e != nil {
				writeError(w, e)
				return
			}
			locked(func(_ int, a *account) {
				if a.reserved {
					writeError(w, reserved)
					return
				}
				if a.BuiltIn && (body.UserName != nil || body.Password != nil || body.RoleID != nil || body.Enabled != nil) {
					writeError(w, builtIn)
					return
				}
				if e := b.checkAccountLocked(body, a.ID); e != nil {
					writeError(w, e)
					return
				}
				if body.UserName != nil {
					a.UserName = *body.UserName
				}
				if a.UserName == "" {
					// A freed slot keeps no password and cannot be enabled.
					a.password, a.Enabled = "", false
				}
				if body.Password != nil {
					a.password = *body.Password
				}
				if body.RoleID != nil {
					a.RoleID = *body.RoleID
				}
				b.setPrivileges(a, body)
				if body.Enabled != nil && a.UserName != "" {
					a.Enabled = *body.Enabled
				}
				writeJSON(w, http.StatusOK, b.accountDoc(a))
			})
		},
	}
	// A slot is never deleted: it is emptied with a PATCH (405 here).
	if b.prof.AccountSlots == 0 {
		h[http.MethodDelete] = func() {
			locked(func(i int, a *account) {
				b.accountWrites++
				if a.BuiltIn {
					writeError(w, builtIn)
					return
				}
				b.accounts = slices.Delete(b.accounts, i, i+1)
				w.WriteHeader(http.StatusNoContent)
			})
		}
	}
	dispatch(w, r, h)
}

// setPrivileges sets the vendor's privileges a body asks for, and the
// role they stand for.
func (b *BMC) setPrivileges(a *account, body accountBody) {
	p := b.prof.Accounts.privileges(body)
	if p == nil {
		return
	}
	if a.Privileges == nil {
		a.Privileges = map[string]bool{}
	}
	for k, v := range p {
		a.Privileges[k] = v
	}
	a.RoleID = roleOf(a.Privileges)
}

// AccountWrites counts the requests that asked to change an account
// (POST or PATCH, taken or refused): a test checks that none was sent.
func (b *BMC) AccountWrites() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.accountWrites
}
