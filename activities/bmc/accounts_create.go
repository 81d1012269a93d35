package bmc

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
)

// createAccount makes in's account: a PATCH of a free slot where the
// collection is slot-based, else a POST, falling back to the slot PATCH
// when the POST is refused 405 (DMTF/Redfishtool#7, ansible's
// redfish_utils, ironcore-dev/metal-operator#913).
func (r *run) createAccount(ac bmcclient.AccountClient, list []bmcclient.AccountInfo, s *accountShape, in AccountInput, pass string) (string, error) {
	if slotBased(list) {
		return AccountCreatedInSlot, r.fillSlot(ac, list, s, in, pass)
	}
	// A POST whose answer was lost is not sent again: done finds the
	// account it made.
	err := r.withRole(s, func(s accountShape) error {
		return r.act("create account "+in.UserName, r.accountIs(in.UserName, func(bmcclient.AccountInfo) bool { return true }),
			func() error { return ac.CreateAccount(r.ctx, wantPatch(in, pass, true, s)) })
	})
	switch {
	case err == nil:
		return AccountCreated, nil
	case bmcclient.StatusOf(err) == http.StatusMethodNotAllowed:
		_, list, lerr := r.accounts()
		if lerr != nil {
			return "", lerr
		}
		return AccountCreatedInSlot, r.fillSlot(ac, list, s, in, pass)
	case strings.Contains(describe(err), "CreateLimitReached"):
		return "", &failure{kindAccountLimit, fmt.Sprintf("no room for account %q of keyset %q: the BMC holds %d accounts and refuses one more (%s)", in.UserName, in.Keyset, len(list), describe(err))}
	}
	return "", err
}

// fillSlot PATCHes in's account into the first free slot (reserved ones
// skipped by id). A refusal there ends it, quoted: a role, a password
// the vendor's policy rejects or a name taken is the same in every slot,
// and trying them all would only report "no room".
func (r *run) fillSlot(ac bmcclient.AccountClient, list []bmcclient.AccountInfo, s *accountShape, in AccountInput, pass string) error {
	empty := emptySlots(list)
	if len(empty) == 0 {
		return &failure{kindAccountLimit, fmt.Sprintf("no empty account slot for account %q of keyset %q: all %d slots hold an account or are reserved", in.UserName, in.Keyset, len(list))}
	}
	slot := empty[0]
	err := r.withRole(s, func(s accountShape) error {
		return r.act("fill account slot "+slot.ID+" with "+in.UserName, r.accountIs(in.UserName, func(bmcclient.AccountInfo) bool { return true }),
			func() error { return ac.PatchAccount(r.ctx, slot.URI, wantPatch(in, pass, true, s), slot.ETag) })
	})
	if err != nil && classify(err) == kindRejected {
		return &failure{kindRejected, fmt.Sprintf("account slot %s refused account %q of keyset %q: %s", slot.ID, in.UserName, in.Keyset, describe(err))}
	}
	return err
}

// readBackAccount is the evidence: the account as the BMC now lists it.
func (r *run) readBackAccount(in AccountInput, s accountShape, action string) (AccountResult, error) {
	_, list, err := r.accounts()
	if err != nil {
		return AccountResult{}, err
	}
	a, found := findAccount(list, in.UserName)
	switch {
	case removed(action) && found:
		return AccountResult{}, &failure{kindNoEffect, fmt.Sprintf("account %q of keyset %q: the BMC accepted its removal (%s) but still lists it", in.UserName, in.Keyset, action)}
	case removed(action):
		return AccountResult{UserName: in.UserName, Action: action}, nil
	case !found:
		return AccountResult{}, &failure{kindNoEffect, fmt.Sprintf("account %q of keyset %q: the BMC accepted the change (%s) but lists no such account", in.UserName, in.Keyset, action)}
	}
	role := shownRole(a, s)
	res := AccountResult{URI: a.URI, UserName: a.UserName, Role: role, Enabled: a.Enabled, Action: action}
	switch {
	case in.Enable && (!a.Enabled || role != string(in.Role)):
		return res, &failure{kindNoEffect, fmt.Sprintf("account %q of keyset %q: the BMC accepted the change (%s) but shows role %q enabled %t, not role %q enabled", in.UserName, in.Keyset, action, role, a.Enabled, in.Role)}
	case !in.Enable && a.Enabled:
		return res, &failure{kindNoEffect, fmt.Sprintf("account %q of keyset %q: the BMC accepted the disable but still shows it enabled", in.UserName, in.Keyset)}
	}
	return res, nil
}
