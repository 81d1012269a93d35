package keysets

import (
	"testing"
	"time"

	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/internal/keyset"
)

// A deleted or expired keyset's outcome on a BMC says what became of its
// accounts: removed when every one is gone (deleted, its slot emptied, or
// absent), disabled when the BMC could only disable one, failed with the
// reason when one failed.
func TestOutcomeSaysRemovedOrDisabled(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	acts := func(actions ...string) []done {
		var all []done
		for i, a := range actions {
			all = append(all, done{account: []string{"alice", "bob"}[i], res: bmc.AccountResult{Action: a}})
		}
		return all
	}
	for _, c := range []struct {
		all  []done
		want keyset.State
	}{
		{acts(bmc.AccountDeleted, bmc.AccountFreed), keyset.Removed},
		{acts(bmc.AccountAbsent, bmc.AccountDeleted), keyset.Removed},
		{acts(bmc.AccountDeleted, bmc.AccountDisabled), keyset.Disabled},
		{acts(bmc.AccountAlreadyDisabled, bmc.AccountFreed), keyset.Disabled},
		{append(acts(bmc.AccountDeleted), done{account: "bob", err: "no session"}), keyset.Failed},
	} {
		if o := outcome("rack1-c1", keyset.Operator, true, c.all, now); o.State != c.want || o.Role != "" {
			t.Errorf("%+v: outcome %+v, want %s without a role", c.all, o, c.want)
		}
	}
	if o := outcome("rack1-c1", keyset.Operator, false, acts(bmc.AccountCreated, bmc.AccountCreated), now); o.State != keyset.Applied {
		t.Errorf("applied: %+v", o)
	}
}
