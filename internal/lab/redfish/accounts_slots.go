package redfish

import "strconv"

// Slot-based AccountServices (Profile.AccountSlots). IPMI-style BMCs and
// iDRACs keep a fixed table of user slots, and their Redfish collection
// lists every slot, used or not (DMTF/Redfishtool#7). An empty slot has
// UserName "" and is disabled; an account is created by a PATCH of an
// empty slot carrying UserName, Password, RoleId and Enabled
// (dell/iDRAC-Redfish-Scripting#16 and #105), and removed by a PATCH that
// empties its UserName (#288). POST to the collection and DELETE of a slot
// answer 405 (ironcore-dev/metal-operator#913 met the 405 on Dell). On an
// iDRAC slot 1 is reserved (never given a user) and slot 2 is root; the
// lab's own account sits in slot 2. Config.AccountLimit, when set, is the
// number of slots.

// slotsLocked makes the BMC's slot table: 1 reserved, 2 its own, the rest
// empty.
func (b *BMC) slotsLocked() []*account {
	n := b.accountLimit()
	if n < 2 {
		n = 2
	}
	out := make([]*account, 0, n)
	for i := 1; i <= n; i++ {
		a := &account{Account: Account{ID: strconv.Itoa(i), RoleID: "None"}}
		switch i {
		case 1:
			a.reserved = true
		case 2:
			a.Account = Account{ID: "2", UserName: b.cfg.Username, RoleID: "Administrator", Enabled: true, BuiltIn: true}
			a.password = b.cfg.Password
		}
		out = append(out, a)
	}
	b.accountSeq = n
	return out
}
