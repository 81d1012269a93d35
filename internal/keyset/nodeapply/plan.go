package nodeapply

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rackroll/rackroll/internal/keyset"
)

// The ids rackroll gives its users (uid = gid): above login.defs' UID_MAX
// (60000), so useradd never hands one out, and between the ranges systemd
// keeps for systemd-homed and mapped users (60001–60577) and its dynamic
// users (61184–65519), so no other allocator on a stock node takes them.
// An id in use is skipped; a node with no free id left is an error.
const (
	IDMin = 60578
	IDMax = 61183
)

// Marker opens the GECOS field of every user rackroll made, followed by
// its keyset's name. A user is rackroll's only with the marker and an id
// in [IDMin, IDMax]: the account files are the one record, so a node
// reinstalled or restored from a backup says by itself what is rackroll's.
const Marker = "rackroll keyset "

// The account files, relative to the root; passwd and group must exist,
// shadow and gshadow are written when the node has them.
const (
	PasswdFile  = "etc/passwd"
	GroupFile   = "etc/group"
	ShadowFile  = "etc/shadow"
	GShadowFile = "etc/gshadow"
)

// accountFiles in the order they are written: the shadow files first, so
// that a user never appears in passwd before its locked password does.
var accountFiles = []string{ShadowFile, GShadowFile, GroupFile, PasswdFile}

// User is a rackroll user as the node has it or will.
type User struct {
	keyset.NodeUser
	UID   int
	Shell string
	// New: not on the node before this run.
	New bool
}

// Home is the user's home, relative to the root.
func (u User) Home() string { return "home/" + u.Name }

// Plan is what a run does: the account files' new contents (each present
// file, changed or not), the users to have and those to remove.
type Plan struct {
	Files   map[string][]byte
	Users   []User
	Removed []User
}

// managed reads a passwd entry: rackroll's user, or ok false.
func managed(f []string) (User, bool) {
	if len(f) != 7 || !strings.HasPrefix(f[4], Marker) {
		return User{}, false
	}
	uid, err := strconv.Atoi(f[2])
	if err != nil || uid < IDMin || uid > IDMax || f[3] != f[2] {
		return User{}, false
	}
	return User{NodeUser: keyset.NodeUser{Name: f[0], Keyset: strings.TrimPrefix(f[4], Marker)}, UID: uid, Shell: f[6]}, true
}

// Managed lists the rackroll users of a passwd file, in its order.
func Managed(passwd []byte) []User {
	var out []User
	parseTable(passwd).each(func(f []string) {
		if u, ok := managed(f); ok {
			out = append(out, u)
		}
	})
	return out
}

// MakePlan decides how files (the account files present under the root,
// by their names above) become files whose rackroll users are exactly
// want's. Every refusal is named, all at once, before anything is
// written: a name that is reserved or not a user name, a user or group of
// that name rackroll did not make, a key that does not parse.
func MakePlan(files map[string][]byte, want keyset.NodeKeys) (Plan, error) {
	var errs []error
	for _, f := range []string{PasswdFile, GroupFile} {
		if _, ok := files[f]; !ok {
			errs = append(errs, fmt.Errorf("/%s is missing under the root: is the host's /etc mounted there?", f))
		}
	}
	if len(errs) > 0 {
		return Plan{}, errors.Join(errs...)
	}
	if _, err := want.Fingerprints(); err != nil {
		return Plan{}, err
	}
	tabs := map[string]table{}
	for name, b := range files {
		tabs[name] = parseTable(b)
	}
	pw, gr := tabs[PasswdFile], tabs[GroupFile]
	have, used := map[string]User{}, map[int]bool{}
	pw.each(func(f []string) {
		if u, ok := managed(f); ok {
			have[u.Name] = u
		}
		if len(f) > 2 {
			if id, err := strconv.Atoi(f[2]); err == nil {
				used[id] = true
			}
		}
	})
	gr.each(func(f []string) {
		if len(f) > 2 {
			if id, err := strconv.Atoi(f[2]); err == nil {
				used[id] = true
			}
		}
	})
	shell := "/bin/sh"
	if f := pw.fields("root"); len(f) == 7 && f[6] != "" {
		shell = f[6] // a login shell the node has: it mounts no /bin to look
	}

	plan := Plan{Files: map[string][]byte{}}
	seen := map[string]bool{}
	next := IDMin
	for _, w := range want.Users {
		if err := refusal(w, seen, have, pw, gr); err != nil {
			errs = append(errs, err)
			continue
		}
		u, ok := have[w.Name]
		if !ok {
			for next <= IDMax && used[next] {
				next++
			}
			if next > IDMax {
				errs = append(errs, fmt.Errorf("user %s: no free uid and gid left in %d–%d (rackroll's range)", w.Name, IDMin, IDMax))
				continue
			}
			u.UID, u.New, used[next] = next, true, true
		}
		u.NodeUser, u.Shell = w, shell
		plan.Users = append(plan.Users, u)
	}
	if len(errs) > 0 {
		return Plan{}, errors.Join(errs...)
	}
	for _, u := range plan.Users {
		put(tabs, u)
	}
	for _, name := range sortedNames(have) {
		if !seen[name] {
			plan.Removed = append(plan.Removed, have[name])
			remove(tabs, have[name])
		}
	}
	for name, t := range tabs {
		plan.Files[name] = t.bytes()
	}
	return plan, nil
}

// refusal says why w cannot be one of the node's rackroll users.
func refusal(w keyset.NodeUser, seen map[string]bool, have map[string]User, pw, gr table) error {
	if p := keyset.OSUserProblem(w.Name); p != "" {
		return fmt.Errorf("user %q: %s", w.Name, p)
	}
	if seen[w.Name] {
		return fmt.Errorf("user %s: listed twice", w.Name)
	}
	seen[w.Name] = true
	if w.Keyset == "" || strings.ContainsAny(w.Keyset, ":,\n") {
		return fmt.Errorf("user %s: keyset %q is not a keyset name", w.Name, w.Keyset)
	}
	if w.Privilege != keyset.Standard && w.Privilege != keyset.Superuser {
		return fmt.Errorf("user %s: privilege %q is none of %s, %s", w.Name, w.Privilege, keyset.Standard, keyset.Superuser)
	}
	u, ours := have[w.Name]
	if f := pw.fields(w.Name); f != nil && !ours {
		return fmt.Errorf("user %s: the node has a user of that name that rackroll did not make (uid %s); rackroll never touches it: rename the keyset's user", w.Name, field(f, 2))
	}
	if f := gr.fields(w.Name); f != nil && (!ours || field(f, 2) != strconv.Itoa(u.UID)) {
		return fmt.Errorf("user %s: the node has a group of that name that rackroll did not make (gid %s); rackroll never touches it: rename the keyset's user", w.Name, field(f, 2))
	}
	return nil
}

func field(f []string, i int) string {
	if i < len(f) {
		return f[i]
	}
	return ""
}

// put writes u's lines. A line already as wanted is left as it is (a
// group's members, a shadow line's dates): only what rackroll decides is
// rewritten.
func put(tabs map[string]table, u User) {
	id := strconv.Itoa(u.UID)
	set := func(file, line string, keep func([]string) bool) {
		t, ok := tabs[file]
		if !ok {
			return
		}
		if f := t.fields(u.Name); f != nil && keep(f) {
			return
		}
		t.set(u.Name, line)
		tabs[file] = t
	}
	set(PasswdFile, strings.Join([]string{u.Name, "x", id, id, Marker + u.Keyset, "/" + u.Home(), u.Shell}, ":"), func([]string) bool { return false })
	set(GroupFile, u.Name+":x:"+id+":", func(f []string) bool { return field(f, 2) == id })
	// "*" matches no password, so the user logs in by key only; "!" (what
	// passwd -l writes) would lock the key out too where sshd runs without
	// PAM, as OpenSSH refuses any login to an account it reads as locked.
	set(ShadowFile, u.Name+":*:::::::", func(f []string) bool { return field(f, 1) == "*" })
	set(GShadowFile, u.Name+":!::", func(f []string) bool { return true })
}

// remove drops u's lines; its group only when it is u's own.
func remove(tabs map[string]table, u User) {
	for _, file := range []string{PasswdFile, ShadowFile, GShadowFile} {
		if t, ok := tabs[file]; ok {
			t.drop(u.Name)
			tabs[file] = t
		}
	}
	if f := tabs[GroupFile].fields(u.Name); field(f, 2) == strconv.Itoa(u.UID) {
		t := tabs[GroupFile]
		t.drop(u.Name)
		tabs[GroupFile] = t
	}
}

func sortedNames(m map[string]User) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
