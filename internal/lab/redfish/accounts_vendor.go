package redfish

import (
	"maps"
	"net/http"
	"strconv"
)

// What vendors' accounts lack or add (Profile.Accounts), beyond the two
// shapes of accounts.go and accounts_slots.go.

// AccountRules is a profile's AccountService, as far as accounts go.
type AccountRules struct {
	// NoEnabled: accounts show no Enabled (HPE iLO): an account logs in
	// for as long as it exists, can be deleted but not disabled, and a
	// body carrying Enabled is refused 400 PropertyUnknown.
	NoEnabled bool
	// NoRoleID: accounts show no RoleId and a body carrying one is refused
	// 400 PropertyUnknown (iLO 4); what an account may do is
	// Oem.<OemVendor>.Privileges, which a POST or PATCH sets.
	NoRoleID  bool
	OemVendor string
	// MinPassword and MaxPassword: the password lengths accepted (0: the
	// lab's 8 and 40), shown as MinPasswordLength and MaxPasswordLength,
	// or, OemMinPassword, only the minimum, as Oem.<OemVendor>.MinPasswordLength
	// (iLO 4).
	MinPassword, MaxPassword int
	OemMinPassword           bool
	// LockoutThreshold failed logins lock an account for LockoutDuration
	// seconds: shown when set (the lab does not lock).
	LockoutThreshold, LockoutDuration int
}

// hpePrivileges: iLO 4's privileges, all of which the BMC's own account
// has; a Redfish role stands for the sets its user guide gives IPMI's
// levels (a user: login only; an operator: also remote console, virtual
// media, virtual power and reset; an administrator: all).
var hpePrivileges = []string{"LoginPriv", "RemoteConsolePriv", "VirtualMediaPriv", "VirtualPowerAndResetPriv", "iLOConfigPriv", "UserConfigPriv"}

var hpeRolePrivileges = map[string]int{"ReadOnly": 1, "Operator": 4, "Administrator": 6}

// privilegesOf is the set a role stands for.
func privilegesOf(role string) map[string]bool {
	out := map[string]bool{}
	for i, p := range hpePrivileges {
		out[p] = i < hpeRolePrivileges[role]
	}
	return out
}

// roleOf is the role a privilege set stands for ("Custom" for another).
func roleOf(p map[string]bool) string {
	for role := range hpeRolePrivileges {
		want := privilegesOf(role)
		got := map[string]bool{}
		for k := range want {
			got[k] = p[k]
		}
		if maps.Equal(want, got) {
			return role
		}
	}
	return "Custom"
}

func (r AccountRules) passwordLengths() (int, int) {
	lo, hi := r.MinPassword, r.MaxPassword
	if lo == 0 {
		lo = minPasswordLength
	}
	if hi == 0 {
		hi = maxPasswordLength
	}
	return lo, hi
}

// serviceRules adds the rules to the AccountService document.
func (r AccountRules) serviceRules(d doc) {
	lo, hi := r.passwordLengths()
	if r.OemMinPassword {
		d["Oem"] = doc{r.OemVendor: doc{"MinPasswordLength": lo}}
	} else {
		d["MinPasswordLength"], d["MaxPasswordLength"] = lo, hi
	}
	if r.LockoutThreshold > 0 {
		d["AccountLockoutThreshold"], d["AccountLockoutDuration"] = r.LockoutThreshold, r.LockoutDuration
	}
}

// shape makes an account's document what the vendor shows.
func (r AccountRules) shape(d doc, a *account) {
	if r.NoEnabled {
		delete(d, "Enabled")
	}
	if r.NoRoleID {
		delete(d, "RoleId")
		delete(d, "Links")
		d["Oem"] = doc{r.OemVendor: doc{"LoginName": a.UserName, "Privileges": a.Privileges}}
	}
}

// refuse is the vendor's refusal of a body, nil when it takes it.
func (r AccountRules) refuse(body accountBody) *apiError {
	unknown := func(name string) *apiError {
		return &apiError{http.StatusBadRequest, "PropertyUnknown", "The property " + name + " is not in the list of valid properties for the resource."}
	}
	switch {
	case r.NoEnabled && body.Enabled != nil:
		return unknown("Enabled")
	case r.NoRoleID && body.RoleID != nil:
		return unknown("RoleId")
	}
	return nil
}

// privileges is what the body's Oem asks for (nil: nothing).
func (r AccountRules) privileges(body accountBody) map[string]bool {
	if !r.NoRoleID {
		return nil
	}
	return body.Oem[r.OemVendor].Privileges
}

// passwordRefusal is the refusal of a password the rules do not accept.
func (r AccountRules) passwordRefusal(pass string) *apiError {
	lo, hi := r.passwordLengths()
	if n := len([]rune(pass)); n >= lo && (r.OemMinPassword || n <= hi) {
		return nil
	}
	return &apiError{http.StatusBadRequest, "PropertyValueFormatError", "The value for the property Password is not in a format that the property can accept: " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi) + " characters."}
}
