package bmc

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
)

// createAccount makes in's account: a PATCH of an empty slot where the
// collection lists empty slots, else a POST, falling back to the slot
// PATCH when the POST is refused 405 (DMTF/Redfishtool#7, ansible's
// redfish_utils, ironcore-dev/metal-operator#913).
func (r *run) createAccount(ac bmcclient.AccountClient, list []bmcclient.AccountInfo, in AccountInput, pass string) (string, error) {
	if len(emptySlots(list)) > 0 {
		return AccountCreatedInSlot, r.fillSlot(ac, list, in, pass)
	}
	// A POST whose answer was lost is not sent again: done finds the
	// account it made.
	err := r.act("create account "+in.UserName, r.accountIs(in.UserName, func(bmcclient.AccountInfo) bool { return true }),
		func() error { return ac.CreateAccount(r.ctx, wantPatch(in, pass, true)) })
	switch {
	case err == nil:
		return AccountCreated, nil
	case bmcclient.StatusOf(err) == http.StatusMethodNotAllowed:
		_, list, lerr := r.accounts()
		if lerr != nil {
			return "", lerr
		}
		return AccountCreatedInSlot, r.fillSlot(ac, list, in, pass)
	case strings.Contains(describe(err), "CreateLimitReached"):
		return "", &failure{kindAccountLimit, fmt.Sprintf("no room for account %q of keyset %q: the BMC holds %d accounts and refuses one more (%s)", in.UserName, in.Keyset, len(list), describe(err))}
	}
	return "", err
}

// fillSlot PATCHes in's account into the first empty slot that takes it.
// A slot the BMC refuses for itself (iDRAC's reserved slot 1 looks empty)
// is passed over; a refusal of the values (a role, a password the BMC's
// policy rejects, a name taken) is the same in every slot and ends it.
func (r *run) fillSlot(ac bmcclient.AccountClient, list []bmcclient.AccountInfo, in AccountInput, pass string) error {
	empty := emptySlots(list)
	var refused []string
	for _, s := range empty {
		err := r.act("fill account slot "+s.ID+" with "+in.UserName, r.accountIs(in.UserName, func(bmcclient.AccountInfo) bool { return true }),
			func() error { return ac.PatchAccount(r.ctx, s.URI, wantPatch(in, pass, true), s.ETag) })
		if err == nil {
			return nil
		}
		if classify(err) != kindRejected || valueRefused(err) {
			return err
		}
		refused = append(refused, "slot "+s.ID+": "+describe(err))
	}
	msg := fmt.Sprintf("no empty account slot for account %q of keyset %q: all %d slots hold an account", in.UserName, in.Keyset, len(list))
	if len(refused) > 0 {
		msg = fmt.Sprintf("no account slot took account %q of keyset %q: %s", in.UserName, in.Keyset, strings.Join(refused, "; "))
	}
	return &failure{kindAccountLimit, msg}
}

// valueRefused: the BMC refused a property's value, not the slot.
func valueRefused(err error) bool {
	d := describe(err)
	return strings.Contains(d, "PropertyValue") || strings.Contains(d, "AlreadyExists") || strings.Contains(d, "PropertyMissing")
}

// readBackAccount is the evidence: the account as the BMC now lists it.
func (r *run) readBackAccount(ac bmcclient.AccountClient, in AccountInput, action string) (AccountResult, error) {
	_, list, err := r.accounts()
	if err != nil {
		return AccountResult{}, err
	}
	a, found := findAccount(list, in.UserName)
	if !found {
		return AccountResult{}, &failure{kindNoEffect, fmt.Sprintf("account %q of keyset %q: the BMC accepted the change (%s) but lists no such account", in.UserName, in.Keyset, action)}
	}
	res := AccountResult{URI: a.URI, UserName: a.UserName, Role: a.RoleID, Enabled: a.Enabled, Action: action}
	switch {
	case in.Enable && (!a.Enabled || a.RoleID != string(in.Role)):
		return res, &failure{kindNoEffect, fmt.Sprintf("account %q of keyset %q: the BMC accepted the change (%s) but shows role %q enabled %t, not role %q enabled", in.UserName, in.Keyset, action, a.RoleID, a.Enabled, in.Role)}
	case !in.Enable && a.Enabled:
		return res, &failure{kindNoEffect, fmt.Sprintf("account %q of keyset %q: the BMC accepted the disable but still shows it enabled", in.UserName, in.Keyset)}
	}
	return res, nil
}
