package keyset

import (
	"slices"
	"strings"
	"time"
)

// Outcomes: what applying a BMC keyset did on each BMM's BMC, or applying
// the BMM keysets on each BMM's node, as the ledger keeps it
// (docs/keysets-bmc-apply.md#applying-a-bmc-keyset, docs/keysets-nodes.md). A BMM without
// an outcome for the keyset's current version is pending: a new version
// (create, update, delete) drops every outcome of the previous one, so an
// outcome always describes the keyset as it is now.

// State is one BMM's outcome for a keyset.
type State string

// Outcome states.
const (
	Pending State = "pending" // not applied yet to this version (derived: never recorded)
	Applied State = "applied" // every account read back with the keyset's role, enabled
	Failed  State = "failed"  // at least one account not applied (Reason says which and why)
	// Disabled: a BMC keyset was deleted or expired, and a BMC could only
	// disable an account: it is there, read back disabled.
	Disabled State = "disabled"
	// Removed: a BMC keyset was deleted or expired and every account is
	// gone from the BMC (deleted, its slot emptied, or absent); or a BMM
	// keyset expired and the node was given the set without it, so its
	// users are no longer there.
	Removed State = "removed"
)

// MaxRemoved is how many deleted BMC keysets the ledger keeps with their
// outcomes, so that `keyset show` can say where their accounts were
// disabled; the oldest go first.
const MaxRemoved = 8

// Outcome is what one BMM's BMC shows for one keyset.
type Outcome struct {
	BMM   string `json:"bmm"`
	State State  `json:"state"`
	// Role is the role the accounts were read back with (applied).
	Role   Role      `json:"role,omitempty"`
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

// Record merges outs into k's outcomes, one per BMM, sorted by BMM, each
// as the ledger keeps it (bounded: pack.go). Outcomes of another version
// than k's (a run applying what was since replaced) are not k's and are
// refused: false.
func Record(k Keyset, version time.Time, outs []Outcome) (Keyset, bool) {
	if !k.Updated.Equal(version) {
		return k, false
	}
	merged := slices.Clone(k.Outcomes)
	for _, o := range outs {
		o = bounded(o)
		i, found := slices.BinarySearchFunc(merged, o.BMM, func(x Outcome, bmm string) int { return strings.Compare(x.BMM, bmm) })
		if found {
			merged[i] = o
		} else {
			merged = slices.Insert(merged, i, o)
		}
	}
	capReasons(merged)
	k.Outcomes = merged
	return k, true
}

// WithoutOutcomes is list without its outcomes: what a reader that
// does not show them gets, whatever the site's size.
func WithoutOutcomes(list []Keyset) []Keyset {
	var out []Keyset
	for _, k := range list {
		k.Outcomes = nil
		out = append(out, k)
	}
	return out
}

// OutcomesFor is k's outcome on each of bmms, in their order: the
// recorded one, or pending.
func OutcomesFor(k Keyset, bmms []string) []Outcome {
	out := make([]Outcome, len(bmms))
	for i, b := range bmms {
		out[i] = Outcome{BMM: b, State: Pending}
		if j := slices.IndexFunc(k.Outcomes, func(x Outcome) bool { return x.BMM == b }); j >= 0 {
			out[i] = k.Outcomes[j]
		}
	}
	return out
}

// Retire moves the keyset named name from list to removed as deleted at
// now by by: a BMC keyset only (a BMM keyset has nothing to disable on a
// BMC), with no outcome yet. removed keeps the newest MaxRemoved.
func Retire(list, removed []Keyset, name, by string, now time.Time) ([]Keyset, []Keyset) {
	k, ok := Find(list, name)
	list = Remove(list, name)
	if !ok || k.Kind != KindBMC {
		return list, removed
	}
	k.Updated, k.By, k.Outcomes = after(k.Updated, now), by, nil
	removed = append(Remove(removed, name), k)
	if n := len(removed) - MaxRemoved; n > 0 {
		removed = removed[n:]
	}
	return list, removed
}

// RemovedFrom is the outcomes an expired BMM keyset gets from a nodes
// run that applied the set without it: a node given that set no longer
// has the keyset's users (removed); a node that failed may still have
// them, and stays failed with its reason.
func RemovedFrom(outs []Outcome) []Outcome {
	out := make([]Outcome, len(outs))
	for i, o := range outs {
		if o.State == Applied {
			o.State, o.Role = Removed, ""
		}
		out[i] = o
	}
	return out
}

// Rechecked names the keysets of list whose accounts a BMC that may have
// lost them gets again: the BMC keysets active at now (a deleted or
// expired keyset's accounts are gone from a new BMC already).
func Rechecked(list []Keyset, now time.Time) []string {
	var out []string
	for _, k := range list {
		if k.Kind == KindBMC && !k.Expired(now) {
			out = append(out, k.Name)
		}
	}
	return out
}

// NextExpiry is the earliest expiration after now among list's keysets of
// kind: when the access they give next changes by itself. ok is false
// when none of them is active.
func NextExpiry(list []Keyset, kind Kind, now time.Time) (next time.Time, ok bool) {
	for _, k := range list {
		if k.Kind != kind || k.Expired(now) {
			continue
		}
		if !ok || k.Expiration.Before(next) {
			next, ok = k.Expiration, true
		}
	}
	return next, ok
}
