package bmc

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
)

// The choices a reimage makes from what the BMC offers: one rule each, used
// by the activities and (read-only) by `starter site check`.

// preferredCDIDs are the vendors' own virtual-CD members, best first: iDRAC
// System VirtualMedia "1" (iDRAC10 boots virtual media only from slot 1,
// and lists "2" first), older iDRAC's Manager "CD", iLO's "2" (its "1" is
// the floppy/USB key), Supermicro's "CD1".
var preferredCDIDs = []string{"1", "CD", "2", "CD1"}

// takesCD: the member's MediaTypes include a CD or DVD.
func takesCD(m bmcclient.MediaInfo) bool {
	return slices.ContainsFunc(m.MediaTypes, func(t string) bool { return t == "CD" || t == "DVD" })
}

// uploadSlot: a member a browser or the BMC's own storage fills, not one that
// mounts a URL: Lenovo XCC's RDOC (images uploaded to the XCC) and Remote
// (mounted from the web console) slots, or a slot an applet holds.
func uploadSlot(m bmcclient.MediaInfo) bool {
	id := strings.ToLower(m.ID)
	return strings.HasPrefix(id, "rdoc") || strings.HasPrefix(id, "remote") || m.ConnectedVia == "Applet"
}

// RankVirtualCDs orders the members a network installer can be mounted in,
// best first, each with why it was taken: CD/DVD-capable, non-upload
// members, the vendors' virtual-CD ids first, then in the BMC's order;
// members that list no MediaTypes at all come last (a BMC that does not
// say may still take a CD). Upload slots and CD-less members never appear.
func RankVirtualCDs(members []bmcclient.MediaInfo) (ranked []bmcclient.MediaInfo, why []string) {
	type cand struct {
		m    bmcclient.MediaInfo
		rank int
		why  string
	}
	var cs []cand
	for _, m := range members {
		where := fmt.Sprintf("%s VirtualMedia %s", m.Location, m.ID)
		switch {
		case uploadSlot(m):
			continue
		case len(m.MediaTypes) == 0:
			cs = append(cs, cand{m, len(preferredCDIDs) + 1, where + ": lists no MediaTypes; tried last"})
		case !takesCD(m):
			continue
		default:
			rank := len(preferredCDIDs)
			why := where + ": takes CD/DVD"
			if i := slices.Index(preferredCDIDs, m.ID); i >= 0 {
				rank, why = i, why+", the vendor's virtual-CD id"
			}
			cs = append(cs, cand{m, rank, why})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.rank - b.rank })
	for _, c := range cs {
		ranked, why = append(ranked, c.m), append(why, c.why)
	}
	return ranked, why
}

// ChooseVirtualCD is the member a reimage uses first (see RankVirtualCDs);
// false when there is none, with why saying what was offered.
func ChooseVirtualCD(members []bmcclient.MediaInfo) (bmcclient.MediaInfo, string, bool) {
	ranked, why := RankVirtualCDs(members)
	if len(ranked) == 0 {
		return bmcclient.MediaInfo{}, noVirtualCD(members), false
	}
	return ranked[0], why[0], true
}

func noVirtualCD(members []bmcclient.MediaInfo) string {
	if len(members) == 0 {
		return "the BMC lists no virtual media under the System or the Manager"
	}
	var seen []string
	for _, m := range members {
		seen = append(seen, fmt.Sprintf("%s %s %v", m.Location, m.ID, m.MediaTypes))
	}
	return "no virtual-media member takes a CD/DVD outside the upload slots (seen: " + strings.Join(seen, "; ") + ")"
}

// ChooseBootTarget is the one-time boot target for the virtual CD from
// BootSourceOverrideTarget@Redfish.AllowableValues: Cd, else UsbCd
// (Supermicro); Cd when the BMC lists nothing; false when the list has
// neither.
func ChooseBootTarget(allowed []string) (string, bool) {
	switch {
	case len(allowed) == 0, slices.Contains(allowed, "Cd"):
		return "Cd", true
	case slices.Contains(allowed, "UsbCd"):
		return "UsbCd", true
	}
	return "", false
}

// CanShutdownGracefully: some allowable ResetType starts with
// GracefulShutdown (Supermicro 1.14 lists the malformed
// "GracefulShutdownGracefulRestart"); a BMC that lists none is assumed to
// take the standard types.
func CanShutdownGracefully(allowed []string) bool {
	return len(allowed) == 0 || slices.ContainsFunc(allowed, func(t string) bool { return strings.HasPrefix(t, "GracefulShutdown") })
}
