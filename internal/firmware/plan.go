package firmware

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Plan is what bringing one server to a baseline takes: the components
// below their minimum in the order they are applied, and the components
// that cannot be judged (never applied: nothing would prove them).
type Plan struct {
	// Entry is the match of the baseline entry that applies; Note says
	// why there is none (the baseline says nothing about the server).
	Entry string `json:"entry,omitempty"`
	Note  string `json:"note,omitempty"`
	// Apply are the components to update, in order (Order).
	Apply []Component `json:"apply,omitempty"`
	// Below are the rows below their minimum, in Apply's order; Unknown
	// the rows that cannot be judged, with why.
	Below   []Row `json:"below,omitempty"`
	Unknown []Row `json:"unknown,omitempty"`
}

// AtBaseline: nothing to apply and nothing unknown.
func (p Plan) AtBaseline() bool { return len(p.Apply) == 0 && len(p.Unknown) == 0 }

// Names are the names of the components to apply, in order.
func (p Plan) Names() []string {
	out := make([]string, 0, len(p.Apply))
	for _, c := range p.Apply {
		out = append(out, c.Name)
	}
	return out
}

// PlanFor judges s against b and lists what to apply. A component is
// applied when a member it matches is below its minimum and none is
// unknown; one with an unknown member is listed in Unknown only (the
// update could not be proven: ApplyFirmware refuses it too).
func PlanFor(b Baseline, s Server) Plan {
	e, ok := b.For(s.Manufacturer, s.Model)
	if !ok {
		return Plan{Note: fmt.Sprintf("no baseline entry matches %s %s", s.Manufacturer, s.Model)}
	}
	p := Plan{Entry: e.Match.String()}
	for _, c := range Order(e.Components) {
		rows := JudgeComponent(c, s)
		switch Worst(rows) {
		case Unknown:
			p.Unknown = append(p.Unknown, rowsWith(rows, Unknown)...)
		case Below:
			p.Apply = append(p.Apply, c)
			p.Below = append(p.Below, rowsWith(rows, Below)...)
		}
	}
	return p
}

// Order is the order components are applied in: by kind as Kinds lists
// them — host firmware first, each taking effect at the host start its
// update needs, and the BMC last, because updating it resets the BMC
// and leaves it away for minutes (its sessions and tasks gone), so
// nothing else can be followed after it — and, within a kind, as the
// baseline declares them. The input is not modified.
func Order(cs []Component) []Component {
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b Component) int { return kindRank(a.Kind) - kindRank(b.Kind) })
	return out
}

func kindRank(kind string) int {
	if i := slices.Index(Kinds, kind); i >= 0 {
		return i
	}
	return len(Kinds)
}

func rowsWith(rows []Row, s Status) []Row {
	var out []Row
	for _, r := range rows {
		if r.Status == s {
			out = append(out, r)
		}
	}
	return out
}

// Describe is rows as one line for a message: each component with its
// member, the current and the required version, and, for an unknown
// one, why.
func Describe(rows []Row) string {
	parts := make([]string, 0, len(rows))
	for _, r := range rows {
		cur := r.Current
		if cur == "" {
			cur = "?"
		}
		s := fmt.Sprintf("%s %s, requires %s", r.Component, cur, r.Minimum)
		if at := cmp.Or(r.ID, r.Source); at != "" && at != r.Component {
			s = fmt.Sprintf("%s (%s) %s, requires %s", r.Component, at, cur, r.Minimum)
		}
		if r.Status == Unknown {
			s += " — cannot be judged: " + r.Why
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// CheckReplace decides whether a Replace of server, which installs
// runtime version, may go ahead on the firmware plan p (its BMC's
// inventory against that version's baseline). apply is the operator's
// --apply-firmware: the components below are then applied first, in the
// same action. A component that cannot be judged refuses it either way
// (the update could not be proven); --force with a reason skips the
// check altogether (the caller does not ask). A refusal is a *Refusal.
func CheckReplace(server, version string, p Plan, apply bool) error {
	var why []string
	if len(p.Below) > 0 && !apply {
		why = append(why, "below: "+Describe(p.Below))
	}
	if len(p.Unknown) > 0 {
		why = append(why, "unknown: "+Describe(p.Unknown))
	}
	if len(why) == 0 {
		return nil
	}
	return &Refusal{Server: server, Applicable: len(p.Below) > 0 && !apply && len(p.Unknown) == 0,
		Finding: fmt.Sprintf("bmm %s's firmware is not at the baseline of runtime %s (%s): %s", server, version, p.Entry, strings.Join(why, "; "))}
}

// Refusal is a Replace refused on its firmware: what was found, and
// whether --apply-firmware would let it go ahead (everything not at the
// baseline is below it, nothing unknown). It travels as the refused
// action's error details, so the troubleshoot runbook, whose replace is
// one of its steps, can say how to proceed from where it stopped.
type Refusal struct {
	Server     string `json:"server"`
	Finding    string `json:"finding"`
	Applicable bool   `json:"applicable,omitempty"`
	// Unread: the inventory could not be read (Finding says why).
	Unread bool `json:"unread,omitempty"`
}

// Error is the refusal as `bmm replace` shows it, with how to proceed.
func (r *Refusal) Error() string {
	next := "check the baseline's inventory patterns and what the BMC shows (starter bmm firmware), or replace with --force --reason TEXT to skip the check"
	switch {
	case r.Unread:
		next = "replace with --force --reason TEXT to skip the check"
	case r.Applicable:
		next = "replace again with --apply-firmware (every other flag kept) to apply the baseline first, or with --force --reason TEXT to skip the check"
	}
	return r.Finding + "; " + next
}

// InRunbook is the refusal as the troubleshoot runbook shows it, naming
// the commands that proceed from where it stopped: again, the runbook run
// again with --apply-firmware; replace, the runbook's replace on its own
// with the hardware facts confirmed and --apply-firmware; forced, the
// runbook again forced, which skips the check.
func (r *Refusal) InRunbook(again, replace, forced string) string {
	skip := fmt.Sprintf("or skip the check: run the runbook again forced: `%s`", forced)
	switch {
	case r.Applicable:
		return fmt.Sprintf("%s; to apply the baseline first, in the replace: run the runbook again with --apply-firmware: `%s` (confirm the repair again when it asks), or the replace alone: `%s`; %s",
			r.Finding, again, replace, skip)
	case r.Unread:
		return r.Finding + "; " + strings.TrimPrefix(skip, "or ")
	}
	return r.Finding + "; check the baseline's inventory patterns and what the BMC shows (`starter bmm firmware`), " + skip
}
