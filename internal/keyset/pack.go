package keyset

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The ledger's outcomes packed: one outcome per BMM per keyset is
// megabytes at a site's limit (2,048 BMMs × 32 keysets and 8 deleted
// ones), past the 2 MB Temporal takes for one payload, and the ledger
// carries them in every continue-as-new. Packed, the BMMs that share
// an outcome are one group, named by their positions in the ledger's BMM
// list (which travels in the same payload): a keyset applied everywhere
// is one group of a few dozen bytes. Record keeps what a group needs
// bounded — times to the second, at most MaxReasons reasons — and past
// maxGroups a keyset's groups keep the latest time of each outcome
// (docs/keysets.md#size).

// MaxReasons is how many different reasons a keyset's outcomes keep;
// later ones say that they were not kept. A reason is what a BMC or a
// kubelet said, often naming the BMC: a site whose BMCs all fail would
// otherwise keep one reason per BMM.
const MaxReasons = 16

// maxReasonLen bounds one reason, in bytes.
const maxReasonLen = 320

// maxGroups: past it, a keyset's groups are merged by outcome with the
// latest time (a pass spread over more seconds than this).
const maxGroups = 48

// Group is the outcomes of a keyset that differ only by BMM.
type Group struct {
	State  State     `json:"state"`
	Role   Role      `json:"role,omitempty"`
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
	// BMMs are positions in the ledger's BMM list: "0-3,8,10-2047".
	BMMs string `json:"bmms"`
}

// Pack groups outs by outcome over order, the ledger's BMM names in its
// order. An outcome of a BMM not in order (one that left the site) is
// dropped: nothing shows it.
func Pack(outs []Outcome, order []string) []Group {
	pos := make(map[string]int, len(order))
	for i, n := range order {
		pos[n] = i
	}
	groups := pack(outs, pos, false)
	if len(groups) > maxGroups {
		groups = pack(outs, pos, true)
	}
	return groups
}

func pack(outs []Outcome, pos map[string]int, anyTime bool) []Group {
	type key struct {
		s      State
		r      Role
		reason string
		at     int64
	}
	at := map[key]time.Time{}
	members := map[key][]int{}
	var keys []key
	for _, o := range outs {
		p, ok := pos[o.BMM]
		if !ok {
			continue
		}
		k := key{o.State, o.Role, o.Reason, o.At.UnixNano()}
		if anyTime {
			k.at = 0
		}
		if _, seen := members[k]; !seen {
			keys = append(keys, k)
		}
		members[k] = append(members[k], p)
		if o.At.After(at[k]) || at[k].IsZero() {
			at[k] = o.At
		}
	}
	groups := make([]Group, len(keys))
	for i, k := range keys {
		groups[i] = Group{State: k.s, Role: k.r, Reason: k.reason, At: at[k], BMMs: ranges(members[k])}
	}
	return groups
}

// Unpack is the outcomes groups say over order, sorted by BMM as Record
// keeps them.
func Unpack(groups []Group, order []string) ([]Outcome, error) {
	var outs []Outcome
	for _, g := range groups {
		ps, err := positions(g.BMMs, len(order))
		if err != nil {
			return nil, fmt.Errorf("outcomes %s %q: %w", g.State, g.BMMs, err)
		}
		for _, p := range ps {
			outs = append(outs, Outcome{BMM: order[p], State: g.State, Role: g.Role, Reason: g.Reason, At: g.At})
		}
	}
	slices.SortFunc(outs, func(a, b Outcome) int { return strings.Compare(a.BMM, b.BMM) })
	return outs, nil
}

// ranges writes ascending positions as "0-3,8,10-12".
func ranges(ps []int) string {
	slices.Sort(ps)
	var b strings.Builder
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ps[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(ps[j]))
		}
		i = j + 1
	}
	return b.String()
}

// positions reads ranges back; each position below n.
func positions(s string, n int) ([]int, error) {
	var ps []int
	if s == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b >= n {
			return nil, fmt.Errorf("%q is not a position or range of positions below %d", part, n)
		}
		for p := a; p <= b; p++ {
			ps = append(ps, p)
		}
	}
	return ps, nil
}

// bounded is o as the ledger keeps it: its time to the second, its
// reason within maxReasonLen.
func bounded(o Outcome) Outcome {
	o.At = o.At.Truncate(time.Second)
	if len(o.Reason) > maxReasonLen {
		cut := maxReasonLen
		for cut > 0 && !isRuneStart(o.Reason[cut]) {
			cut--
		}
		o.Reason = o.Reason[:cut] + "…"
	}
	return o
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// capReasons keeps the first MaxReasons reasons of outs (in BMM order);
// an outcome with another one says that it was not kept.
func capReasons(outs []Outcome) {
	seen := map[string]bool{}
	for i, o := range outs {
		if o.Reason == "" || seen[o.Reason] {
			continue
		}
		if len(seen) < MaxReasons {
			seen[o.Reason] = true
			continue
		}
		outs[i].Reason = fmt.Sprintf("%s: reason not kept (this keyset's outcomes keep %d different reasons; the run's history has each)",
			cmp.Or(string(o.State), "failed"), MaxReasons)
	}
}
