package keyset

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

// The ledger's keyset rules: what its create, update and delete Updates
// accept (their validators call these, so a refusal leaves no trace in
// history) and how they change the list it keeps, sorted by name.

// CheckCreate checks s as a new keyset of the ledger's list at now: s
// itself (Check), a name not taken, room for one more, and no member that
// another keyset of the same kind already has.
func CheckCreate(list []Keyset, s Spec, now time.Time) (Spec, error) {
	s, err := Check(s, now)
	var e model.ValidationError
	e.AddErr("", err)
	if _, ok := Find(list, s.Name); ok && s.Name != "" {
		e.Add("name", s.Name, "a keyset of that name exists: change it with `starter keyset update`, or choose another name")
	} else if len(list) >= MaxKeysets {
		e.Addf("name", s.Name, "the cluster has %d keysets, the most it keeps: delete one first", len(list))
	}
	clashes(&e, list, s)
	return s, e.Err()
}

// CheckUpdate checks s as the new content of the keyset of its name:
// it must exist and keep its kind (a BMM keyset does not become a BMC one:
// delete it and create the other).
func CheckUpdate(list []Keyset, s Spec, now time.Time) (Spec, error) {
	s, err := Check(s, now)
	var e model.ValidationError
	e.AddErr("", err)
	if old, ok := Find(list, s.Name); !ok && s.Name != "" {
		e.Add("name", s.Name, "no keyset of that name: create it with `starter keyset create`"+known(list))
	} else if ok && s.Kind != "" && old.Kind != s.Kind {
		e.Addf("kind", string(s.Kind), "keyset %s is of kind %s and keeps it: delete it and create a %s keyset", s.Name, old.Kind, s.Kind)
	}
	clashes(&e, list, s)
	return s, e.Err()
}

// CheckDelete refuses to delete a keyset that does not exist.
func CheckDelete(list []Keyset, name string) error {
	if name == "" {
		return errors.New("name: required: the keyset to delete")
	}
	if _, ok := Find(list, name); !ok {
		return fmt.Errorf("name: %q — no keyset of that name%s", name, known(list))
	}
	return nil
}

// Put writes s, checked, into list: a new keyset is created at now, an
// existing one keeps its creation time. The list stays sorted by name.
func Put(list []Keyset, s Spec, by string, now time.Time) []Keyset {
	k := Keyset{Spec: s, Created: now, Updated: now, By: by}
	out := slices.Clone(list)
	if i := slices.IndexFunc(out, func(x Keyset) bool { return x.Name == s.Name }); i >= 0 {
		k.Created, k.Updated = out[i].Created, after(out[i].Updated, now)
		out[i] = k
		return out
	}
	out = append(out, k)
	slices.SortFunc(out, func(a, b Keyset) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// after is now, or just after prev when now is not later: Updated is the
// version a keyset's outcomes are recorded against (outcome.go), so two
// writes in one workflow task (one workflow.Now) are still two versions.
func after(prev, now time.Time) time.Time {
	if now.After(prev) {
		return now
	}
	return prev.Add(time.Nanosecond)
}

// Remove drops the keyset named name from list.
func Remove(list []Keyset, name string) []Keyset {
	return slices.DeleteFunc(slices.Clone(list), func(k Keyset) bool { return k.Name == name })
}

// clashes names the members of s that another keyset of the same kind
// already has: one OS user (or BMC account) is one keyset's, or its
// privilege and expiry would depend on which keyset was applied last.
func clashes(e *model.ValidationError, list []Keyset, s Spec) {
	owner := map[string]string{}
	for _, k := range list {
		if k.Kind != s.Kind || k.Name == s.Name {
			continue
		}
		for _, m := range k.Members() {
			owner[strings.ToLower(m)] = k.Name
		}
	}
	for i, u := range s.Users {
		if o, ok := owner[u.Name]; ok {
			e.Addf(fmt.Sprintf("users[%d].name", i), u.Name, "already a user of bmm keyset %s: a user is in one keyset of a kind", o)
		}
	}
	for i, a := range s.Accounts {
		if o, ok := owner[strings.ToLower(a.Name)]; ok {
			e.Addf(fmt.Sprintf("accounts[%d].name", i), a.Name, "already an account of bmc keyset %s: an account is in one keyset of a kind", o)
		}
	}
}

func known(list []Keyset) string {
	if len(list) == 0 {
		return " (the cluster has none)"
	}
	names := make([]string, len(list))
	for i, k := range list {
		names[i] = k.Name
	}
	return " (the cluster has " + strings.Join(names, ", ") + ")"
}
