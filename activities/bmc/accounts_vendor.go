package bmc

import (
	"fmt"
	"maps"
	"strings"
	"unicode/utf8"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/internal/keyset"
)

// How vendors keep accounts, decided from what the BMC shows (pure
// functions; docs/keysets-bmc.md has the sources):
//
//   - slot-based (iDRAC9; IPMI-style BMCs): the collection lists fixed
//     slots, the free ones with UserName "" (DMTF/Redfishtool#7). An
//     account is made by a PATCH of a free slot and freed by a PATCH that
//     empties it, UserName "" and Enabled false, as bmclib does
//     (bmc-toolbox/bmclib providers/redfish/user.go, UserCreate and
//     UserDelete) and ansible's redfish_utils delete_user_via_patch; slot 1
//     is iDRAC's reserved one, skipped by id as bmclib does;
//   - a collection (HPE iLO, OpenBMC, Supermicro, iDRAC10): POST makes an
//     account, DELETE removes it (HewlettPackard/ilo-rest-api-docs,
//     AccountService: "remove a user account by DELETEing" it);
//   - an account without Enabled (iLO): it logs in for as long as it
//     exists, so absent is not false, it is never sent Enabled, and it can
//     only be removed, not disabled;
//   - RoleId refused (iLO 4, whose privileges are Oem.Hp(e).Privileges):
//     the vendor's privileges for the keyset's role instead.

// slotBased: the collection is a fixed table of slots: it lists a member
// without a user name.
func slotBased(list []bmcclient.AccountInfo) bool {
	for _, a := range list {
		if a.UserName == "" {
			return true
		}
	}
	return false
}

// reservedSlot: a slot the BMC keeps for itself, never filled or freed
// (iDRAC's slot 1; bmclib skips it by id).
func reservedSlot(id string) bool { return id == "1" }

// emptySlots are a slot-based collection's free slots, in collection
// order, reserved ones left out.
func emptySlots(list []bmcclient.AccountInfo) []bmcclient.AccountInfo {
	var out []bmcclient.AccountInfo
	for _, a := range list {
		if a.UserName == "" && !reservedSlot(a.ID) {
			out = append(out, a)
		}
	}
	return out
}

// accountShape is what a BMC's accounts take, read from its list.
type accountShape struct {
	// enabled: its accounts show Enabled, so it is sent (an iLO has none).
	enabled bool
	// vendor: the Oem key its accounts show privileges under ("" none);
	// privileges: send them instead of RoleId, once RoleId was refused
	// (withRole). Always RoleId first: a BMC showing no RoleId may still
	// take one, and the vendor's privileges are the exception.
	vendor     string
	privileges bool
}

// shapeOf reads the shape from the accounts that hold a user.
func shapeOf(list []bmcclient.AccountInfo) accountShape {
	var s accountShape
	users, noEnabled := 0, 0
	for _, a := range list {
		if a.UserName == "" {
			continue
		}
		users++
		if a.NoEnabled {
			noEnabled++
		}
		if a.OemVendor != "" && a.Privileges != nil {
			s.vendor = a.OemVendor
		}
	}
	s.enabled = users == 0 || noEnabled < users
	return s
}

// hpePrivileges are iLO 4's privileges for each Redfish role, as its user
// guide maps them to IPMI's levels ("IPMI/DCMI users": a user has none
// but login; an operator Remote Console, Virtual Power and Reset and
// Virtual Media; an administrator also Configure iLO Settings and
// Administer User Accounts).
var hpePrivileges = map[keyset.Role][]string{
	keyset.ReadOnly:      {"LoginPriv"},
	keyset.Operator:      {"LoginPriv", "RemoteConsolePriv", "VirtualMediaPriv", "VirtualPowerAndResetPriv"},
	keyset.Administrator: {"LoginPriv", "RemoteConsolePriv", "VirtualMediaPriv", "VirtualPowerAndResetPriv", "iLOConfigPriv", "UserConfigPriv"},
}

// vendorPrivileges is the privilege set role stands for: every privilege
// rackroll knows, true or false, so a role lowered is lowered.
func vendorPrivileges(role keyset.Role) map[string]bool {
	out := map[string]bool{}
	for _, p := range hpePrivileges[keyset.Administrator] {
		out[p] = false
	}
	for _, p := range hpePrivileges[role] {
		out[p] = true
	}
	return out
}

// roleOfPrivileges is the role a privilege set stands for ("" none: a set
// rackroll did not make).
func roleOfPrivileges(p map[string]bool) string {
	if p == nil {
		return ""
	}
	for _, r := range []keyset.Role{keyset.ReadOnly, keyset.Operator, keyset.Administrator} {
		want := vendorPrivileges(r)
		got := map[string]bool{}
		for k := range want {
			got[k] = p[k]
		}
		if maps.Equal(want, got) {
			return string(r)
		}
	}
	return ""
}

// shownRole is the account's role as the BMC shows it: its RoleId, or
// where privileges stand for roles, what they stand for.
func shownRole(a bmcclient.AccountInfo, s accountShape) string {
	if s.privileges {
		return roleOfPrivileges(a.Privileges)
	}
	return a.RoleID
}

// roleRefused: the BMC refused the request for its RoleId (iLO 4 answers
// 400 naming it), not for another value.
func roleRefused(err error) bool {
	return classify(err) == kindRejected && strings.Contains(describe(err), "RoleId")
}

// checkPassword refuses a password the BMC's rules refuse, naming the
// Secret and the rule, never the password (nor its length).
func checkPassword(pass string, rules bmcclient.AccountRules, in AccountInput) error {
	n := utf8.RuneCountInString(pass)
	s := in.PasswordSecret
	id := fmt.Sprintf("Secret %s/%s key %q", s.Namespace, s.Name, s.Key)
	var broken string
	switch {
	case rules.MinPasswordLength > 0 && n < rules.MinPasswordLength:
		broken = fmt.Sprintf("shorter than the BMC's MinPasswordLength %d", rules.MinPasswordLength)
	case rules.MaxPasswordLength > 0 && n > rules.MaxPasswordLength:
		broken = fmt.Sprintf("longer than the BMC's MaxPasswordLength %d", rules.MaxPasswordLength)
	default:
		return nil
	}
	return &failure{kindConfig, fmt.Sprintf("account %q of keyset %q: the password in %s is %s (the AccountService allows %s): nothing was changed on this BMC",
		in.UserName, in.Keyset, id, broken, describeRules(rules))}
}

// describeRules says what the AccountService allows.
func describeRules(r bmcclient.AccountRules) string {
	var parts []string
	if r.MinPasswordLength > 0 {
		parts = append(parts, fmt.Sprintf("at least %d characters", r.MinPasswordLength))
	}
	if r.MaxPasswordLength > 0 {
		parts = append(parts, fmt.Sprintf("at most %d characters", r.MaxPasswordLength))
	}
	if r.LockoutThreshold > 0 {
		parts = append(parts, fmt.Sprintf("an account locked for %d s after %d failed logins", r.LockoutDuration, r.LockoutThreshold))
	}
	return strings.Join(parts, ", ")
}
