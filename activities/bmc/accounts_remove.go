package bmc

import (
	"fmt"
	"net/http"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
)

// removeAccount takes an account of a deleted or expired keyset away:
// removed where the vendor frees it (a slot emptied, a DELETE), disabled
// only where it can do neither, so a BMC never fills up with the
// accounts of past keysets. The BMC's own account is never reached here
// (ensureAccount refuses it), nor a reserved slot (it holds no user).
func (r *run) removeAccount(ac bmcclient.AccountClient, list []bmcclient.AccountInfo, cur bmcclient.AccountInfo, in AccountInput) (string, error) {
	if slotBased(list) {
		return AccountFreed, r.emptySlot(ac, cur, in)
	}
	err := r.act("delete account "+in.UserName, r.accountGone(in.UserName),
		func() error { return ac.DeleteAccount(r.ctx, cur.URI, cur.ETag) })
	if err == nil {
		return AccountDeleted, nil
	}
	if bmcclient.StatusOf(err) != http.StatusMethodNotAllowed {
		return "", err
	}
	// No DELETE: a slot table whose free slots are not listed, maybe
	// (ansible's redfish_utils empties the slot on 405), else disabled.
	ferr := r.emptySlot(ac, cur, in)
	if ferr == nil {
		return AccountFreed, nil
	}
	if classify(ferr) != kindRejected {
		return "", ferr
	}
	return r.disableAccount(ac, cur, in, describe(err)+"; "+describe(ferr))
}

// emptySlot frees cur's slot: UserName "" and Enabled false in one PATCH,
// as bmclib's UserDelete sends them (Enabled left out where the account
// has none).
func (r *run) emptySlot(ac bmcclient.AccountClient, cur bmcclient.AccountInfo, in AccountInput) error {
	none := ""
	p := bmcclient.AccountPatch{UserName: &none}
	if !cur.NoEnabled {
		off := false
		p.Enabled = &off
	}
	return r.act("free account slot "+cur.ID+" of "+in.UserName, r.accountGone(in.UserName),
		func() error { return ac.PatchAccount(r.ctx, cur.URI, p, cur.ETag) })
}

// disableAccount is the last resort of a BMC that can neither delete nor
// free an account; one without Enabled cannot be disabled either, and
// that is said, not taken for done.
func (r *run) disableAccount(ac bmcclient.AccountClient, cur bmcclient.AccountInfo, in AccountInput, why string) (string, error) {
	switch {
	case cur.NoEnabled:
		return "", &failure{kindRejected, fmt.Sprintf("account %q of keyset %q can be neither removed (%s) nor disabled (it has no Enabled): it still logs in", in.UserName, in.Keyset, why)}
	case !cur.Enabled:
		return AccountAlreadyDisabled, nil
	}
	off := false
	return AccountDisabled, r.act("disable account "+in.UserName, r.accountIs(in.UserName, func(a bmcclient.AccountInfo) bool { return !a.Enabled }),
		func() error { return ac.PatchAccount(r.ctx, cur.URI, bmcclient.AccountPatch{Enabled: &off}, cur.ETag) })
}

// accountGone is a done check for act: the BMC lists no such account.
func (r *run) accountGone(name string) func() (bool, error) {
	return func() (bool, error) {
		_, list, err := r.accounts()
		if err != nil {
			return false, err
		}
		_, found := findAccount(list, name)
		return !found, nil
	}
}

// removed: the action took the account away.
func removed(action string) bool { return action == AccountDeleted || action == AccountFreed }
