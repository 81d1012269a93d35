package nodeapply

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rackroll/rackroll/internal/keyset"
)

// SudoersDir holds one file per superuser, SudoersPrefix and its name:
// sudo reads every file there whose name has no '.' (an OS user name has
// none), and rackroll's are found by the prefix alone.
const (
	SudoersDir    = "etc/sudoers.d"
	SudoersPrefix = "rackroll-"
)

// sudoers is a superuser's sudoers.d file: every command as anyone,
// without a password, as a rackroll user has none. Its syntax is fixed
// and the name a checked user name, so it needs no visudo (which the
// image does not carry).
func sudoers(u User) []byte {
	return fmt.Appendf(nil, "# rackroll keyset %s: %s is a superuser\n%s ALL=(ALL:ALL) NOPASSWD: ALL\n", u.Keyset, u.Name, u.Name)
}

// Applier makes the rackroll users of the node whose root file system is
// at Root exactly those it is given.
type Applier struct {
	Root string
	// Chown sets a path's owner; nil is os.Lchown. A test not run as root
	// records instead.
	Chown func(path string, uid, gid int) error
	// Log, when set, is told every change (the pod's log).
	Log func(format string, args ...any)
}

func (a *Applier) path(rel string) string { return filepath.Join(a.Root, filepath.FromSlash(rel)) }

// Apply makes the node's rackroll users want's, under the account files'
// lock, and answers what the node then holds, read back from its files.
// Whatever it refuses, it refuses before it writes anything.
func (a *Applier) Apply(want keyset.NodeKeys) (keyset.NodeReport, error) {
	if fi, err := os.Stat(a.path("etc")); err != nil || !fi.IsDir() {
		return keyset.NodeReport{}, fmt.Errorf("no /etc under the root %s: is the host's /etc mounted there?", a.Root)
	}
	unlock, err := lockAccounts(a.path("etc/.pwd.lock"))
	if err != nil {
		return keyset.NodeReport{}, err
	}
	defer unlock()
	files := map[string][]byte{}
	for _, f := range accountFiles {
		b, err := os.ReadFile(a.path(f))
		switch {
		case err == nil:
			files[f] = b
		case !errors.Is(err, fs.ErrNotExist):
			return keyset.NodeReport{}, err
		}
	}
	plan, err := MakePlan(files, want)
	if err != nil {
		return keyset.NodeReport{}, err
	}
	for _, u := range plan.Users {
		if _, err := os.Lstat(a.path(u.Home())); u.New && err == nil {
			return keyset.NodeReport{}, fmt.Errorf("user %s: /%s exists and rackroll did not make it (a user removed without its home?); rackroll never hands it to another user: remove or rename it", u.Name, u.Home())
		}
	}
	// Access goes first: a removed user's sudo and home (its keys) are
	// gone before its account, so a run cut short leaves a rackroll user
	// that the next run removes, never a key without its account.
	for _, u := range plan.Removed {
		if err := a.removePath(a.path(SudoersDir + "/" + SudoersPrefix + u.Name)); err != nil {
			return keyset.NodeReport{}, err
		}
		if err := a.removePath(a.path(u.Home())); err != nil {
			return keyset.NodeReport{}, err
		}
		a.logf("removing user %s (keyset %s)", u.Name, u.Keyset)
	}
	if err := a.writeAccounts(plan.Files); err != nil {
		return keyset.NodeReport{}, err
	}
	for _, u := range plan.Users {
		if u.New {
			a.logf("added user %s (keyset %s, uid %d)", u.Name, u.Keyset, u.UID)
		}
		if err := a.giveAccess(u); err != nil {
			return keyset.NodeReport{}, fmt.Errorf("user %s: %w", u.Name, err)
		}
	}
	if err := a.pruneSudoers(plan.Users); err != nil {
		return keyset.NodeReport{}, err
	}
	return a.Report()
}

// writeAccounts writes the account files that changed, each with the
// mode and owner it had (shadow is 0640 root:shadow on one distribution,
// 0000 root:root on another).
func (a *Applier) writeAccounts(files map[string][]byte) error {
	for _, f := range accountFiles {
		b, ok := files[f]
		if !ok {
			continue
		}
		fi, err := os.Stat(a.path(f))
		if err != nil {
			return err
		}
		if _, err := a.writeFile(a.path(f), b, fi.Mode().Perm(), ownerOf(fi)); err != nil {
			return err
		}
	}
	return nil
}

// giveAccess gives u its home, its key and, as a superuser, sudo; as a
// standard user, no sudo.
func (a *Applier) giveAccess(u User) error {
	o := owner{u.UID, u.UID}
	home := a.path(u.Home())
	if err := os.MkdirAll(filepath.Dir(home), 0o755); err != nil { // /home as it is, made only when missing
		return err
	}
	for _, d := range []string{home, filepath.Join(home, ".ssh")} {
		if err := a.ensureDir(d, 0o700, o); err != nil {
			return err
		}
	}
	if _, err := a.writeFile(filepath.Join(home, ".ssh", "authorized_keys"), []byte(strings.TrimSpace(u.Key)+"\n"), 0o600, o); err != nil {
		return err
	}
	file := a.path(SudoersDir + "/" + SudoersPrefix + u.Name)
	if u.Privilege != keyset.Superuser {
		return a.removePath(file)
	}
	if err := a.ensureDir(a.path(SudoersDir), 0o755, owner{0, 0}); err != nil {
		return err
	}
	_, err := a.writeFile(file, sudoers(u), 0o440, owner{0, 0})
	return err
}

// pruneSudoers removes the rackroll sudoers files of no superuser (a
// user removed by hand, a file left by a run cut short).
func (a *Applier) pruneSudoers(users []User) error {
	keep := map[string]bool{}
	for _, u := range users {
		keep[SudoersPrefix+u.Name] = u.Privilege == keyset.Superuser
	}
	entries, err := os.ReadDir(a.path(SudoersDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), SudoersPrefix) && !keep[e.Name()] {
			if err := a.removePath(a.path(SudoersDir + "/" + e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
