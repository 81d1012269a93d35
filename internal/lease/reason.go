package lease

import (
	"fmt"
	"strings"
)

// MaxReasonLen bounds a break-glass reason: it is kept in the ledger and
// shown in every history row.
const MaxReasonLen = 500

// CheckReason is the one rule for a break-glass reason: a forced act needs
// one (a sentence an auditor can read), an unforced act takes none, and it
// is one line of at most MaxReasonLen characters.
func CheckReason(force bool, reason string) error {
	r := strings.TrimSpace(reason)
	switch {
	case force && r == "":
		return fmt.Errorf("reason is empty: force needs a reason saying why (--reason TEXT)")
	case !force && reason != "":
		return fmt.Errorf("reason %q given without force: a reason goes with --force", reason)
	case strings.ContainsAny(reason, "\r\n"):
		return fmt.Errorf("reason %q spans lines: allowed one line", reason)
	case len(reason) > MaxReasonLen:
		return fmt.Errorf("reason is %d characters: allowed at most %d", len(reason), MaxReasonLen)
	}
	return nil
}

// HeldOn returns the lease on bmm (a BMM is never leased twice).
func HeldOn(held []Lease, bmm string) (Lease, bool) {
	for _, l := range held {
		if l.BMM == bmm {
			return l, true
		}
	}
	return Lease{}, false
}
