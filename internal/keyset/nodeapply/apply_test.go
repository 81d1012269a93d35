package nodeapply

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/rackroll/rackroll/internal/keyset/keysettest"
	"github.com/stretchr/testify/require"
)

// A node as a distribution leaves it: root, a system user, the console
// user and a user of the site's own, with a sudoers file and keys of
// theirs. Nothing of it is rackroll's.
var node = map[string]string{
	PasswdFile: "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n" +
		"console:x:1000:1000:console user:/home/console:/bin/bash\ncarol:x:1001:1001:Carol C.:/home/carol:/bin/bash\n",
	GroupFile:                               "root:x:0:\ndaemon:x:1:\nsudo:x:27:console\nconsole:x:1000:\ncarol:x:1001:\n",
	ShadowFile:                              "root:$6$salt$hash:19700:0:99999:7:::\ndaemon:*:19700:0:99999:7:::\nconsole:$6$salt$other:19700:0:99999:7:::\ncarol:!:19700:0:99999:7:::\n",
	GShadowFile:                             "root:*::\ndaemon:*::\nsudo:*::console\nconsole:!::\ncarol:!::\n",
	"etc/sudoers.d/console":                 "console ALL=(ALL) ALL\n",
	"home/carol/.ssh/authorized_keys":       keysettest.Line(9, "carol@site") + "\n",
	"home/console/.ssh/authorized_keys":     keysettest.Line(8, "console@site") + "\n",
	"root/.ssh/authorized_keys":             keysettest.Line(7, "root@site") + "\n",
	"etc/sudoers.d/README":                  "# the site's\n",
	"home/console/.bashrc":                  "# console\n",
	"etc/ssh/sshd_config.d/50-site.conf":    "PasswordAuthentication no\n",
	"etc/sudoers.d/.rackroll-leftover-skip": "",
	"etc/.pwd.lock":                         "",
}

func scratchNode(t *testing.T) (*Applier, map[string][2]int) {
	t.Helper()
	root := t.TempDir()
	for rel, body := range node {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	require.NoError(t, os.Chmod(filepath.Join(root, ShadowFile), 0o640))
	owners := map[string][2]int{}
	a := &Applier{Root: root, Chown: func(path string, uid, gid int) error {
		rel, _ := filepath.Rel(root, path)
		name, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(rel), "."), ".rackroll-") // a temp file: its file's name
		owners[name+"@"+filepath.Dir(rel)] = [2]int{uid, gid}
		if os.Geteuid() == 0 {
			return os.Lchown(path, uid, gid)
		}
		return nil // not root: recorded only
	}, Log: t.Logf}
	return a, owners
}

// snapshot is every file and directory under root: bytes, mode, mtime and
// inode (a file rewritten by rename has a new one).
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		body := ""
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			body = string(b)
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = fi.Mode().String() + " " + fi.ModTime().Format(time.RFC3339Nano) + " " +
			strconv.FormatUint(fi.Sys().(*syscall.Stat_t).Ino, 10) + " " + body
		return nil
	}))
	return out
}

func read(t *testing.T, a *Applier, rel string) string {
	t.Helper()
	b, err := os.ReadFile(a.path(rel))
	require.NoError(t, err)
	return string(b)
}

func mode(t *testing.T, a *Applier, rel string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(a.path(rel))
	require.NoError(t, err)
	return fi.Mode().Perm()
}

var (
	alice = keyset.NodeUser{Name: "alice", Keyset: "oncall", Privilege: keyset.Superuser, Key: keysettest.Line(1, "alice@laptop")}
	bob   = keyset.NodeUser{Name: "bob", Keyset: "oncall", Privilege: keyset.Superuser, Key: keysettest.Line(2, "bob@laptop")}
	dave  = keyset.NodeUser{Name: "dave", Keyset: "night", Privilege: keyset.Standard, Key: keysettest.Line(3, "dave@laptop")}
)

// The node program on a scratch root: users added with their keys, sudo
// for superusers only, the node's own users and root untouched byte for
// byte, a second run changes nothing, removed users gone with their home,
// key and sudo, and the empty set gives back the node as it was.
func TestApplyOnAScratchNode(t *testing.T) {
	a, owners := scratchNode(t)
	before := snapshot(t, a.Root)
	want := keyset.NodeKeys{Users: []keyset.NodeUser{alice, bob, dave}}

	rep, err := a.Apply(want)
	require.NoError(t, err)
	require.NoError(t, keyset.CheckReport(want, rep), "the report read back from the files is the set")

	passwd := read(t, a, PasswdFile)
	require.True(t, strings.HasPrefix(passwd, node[PasswdFile]), "the node's users are kept byte for byte:\n%s", passwd)
	require.Equal(t, "alice:x:60578:60578:rackroll keyset oncall:/home/alice:/bin/bash\n"+
		"bob:x:60579:60579:rackroll keyset oncall:/home/bob:/bin/bash\n"+
		"dave:x:60580:60580:rackroll keyset night:/home/dave:/bin/bash\n", strings.TrimPrefix(passwd, node[PasswdFile]))
	require.Equal(t, node[GroupFile]+"alice:x:60578:\nbob:x:60579:\ndave:x:60580:\n", read(t, a, GroupFile))
	require.Equal(t, node[ShadowFile]+"alice:*:::::::\nbob:*:::::::\ndave:*:::::::\n", read(t, a, ShadowFile), "no password: keys only")
	require.Equal(t, fs.FileMode(0o640), mode(t, a, ShadowFile), "shadow keeps its mode")
	require.Equal(t, node[GShadowFile]+"alice:!::\nbob:!::\ndave:!::\n", read(t, a, GShadowFile))

	require.Equal(t, dave.Key+"\n", read(t, a, "home/dave/.ssh/authorized_keys"))
	require.Equal(t, fs.FileMode(0o600), mode(t, a, "home/dave/.ssh/authorized_keys"))
	require.Equal(t, fs.FileMode(0o700), mode(t, a, "home/dave/.ssh"))
	require.Equal(t, fs.FileMode(0o700), mode(t, a, "home/dave"))
	require.Equal(t, [2]int{60580, 60580}, owners["authorized_keys@home/dave/.ssh"])
	require.Equal(t, [2]int{60580, 60580}, owners["dave@home"])
	require.Equal(t, "# rackroll keyset oncall: alice is a superuser\nalice ALL=(ALL:ALL) NOPASSWD: ALL\n", read(t, a, "etc/sudoers.d/rackroll-alice"))
	require.Equal(t, fs.FileMode(0o440), mode(t, a, "etc/sudoers.d/rackroll-alice"))
	require.Equal(t, [2]int{0, 0}, owners["rackroll-alice@etc/sudoers.d"])
	require.NoFileExists(t, a.path("etc/sudoers.d/rackroll-dave"), "a standard user has no sudo")

	after := snapshot(t, a.Root)
	for _, rel := range []string{"etc/sudoers.d/console", "etc/sudoers.d/README", "home/carol", "home/carol/.ssh/authorized_keys",
		"home/console", "home/console/.ssh/authorized_keys", "root", "root/.ssh/authorized_keys", "etc/ssh/sshd_config.d/50-site.conf"} {
		require.Equal(t, before[rel], after[rel], "%s is not rackroll's: untouched", rel)
	}

	_, err = a.Apply(want)
	require.NoError(t, err)
	require.Equal(t, after, snapshot(t, a.Root), "a second run changes nothing: no file written, no mtime moved")

	// bob leaves, alice loses sudo, dave's key changes.
	alice2, dave2 := alice, dave
	alice2.Privilege, dave2.Key = keyset.Standard, keysettest.Line(4, "dave@new")
	want = keyset.NodeKeys{Users: []keyset.NodeUser{alice2, dave2}}
	rep, err = a.Apply(want)
	require.NoError(t, err)
	require.NoError(t, keyset.CheckReport(want, rep))
	require.NotContains(t, read(t, a, PasswdFile)+read(t, a, GroupFile)+read(t, a, ShadowFile)+read(t, a, GShadowFile), "bob")
	require.NoDirExists(t, a.path("home/bob"), "a removed user's home goes: its uid may be given to another")
	require.NoFileExists(t, a.path("etc/sudoers.d/rackroll-bob"))
	require.NoFileExists(t, a.path("etc/sudoers.d/rackroll-alice"))
	require.Equal(t, dave2.Key+"\n", read(t, a, "home/dave/.ssh/authorized_keys"))

	rep, err = a.Apply(keyset.NodeKeys{Users: []keyset.NodeUser{}})
	require.NoError(t, err)
	require.Equal(t, 0, rep.Users)
	for _, f := range accountFiles {
		require.Equal(t, node[f], read(t, a, f), "with no rackroll user, %s is the node's again, byte for byte", f)
	}
	require.Equal(t, node["etc/sudoers.d/console"], read(t, a, "etc/sudoers.d/console"))
	require.Equal(t, node["home/carol/.ssh/authorized_keys"], read(t, a, "home/carol/.ssh/authorized_keys"))
	require.NoDirExists(t, a.path("home/alice"))
}

// A user named like one of the node's own, root, the console user: each
// refused, named, and nothing written.
func TestApplyRefusesWhatIsNotRackrolls(t *testing.T) {
	a, _ := scratchNode(t)
	before := snapshot(t, a.Root)
	carol := keyset.NodeUser{Name: "carol", Keyset: "oncall", Privilege: keyset.Superuser, Key: keysettest.Line(5, "x")}
	root := keyset.NodeUser{Name: "root", Keyset: "oncall", Privilege: keyset.Superuser, Key: keysettest.Line(5, "x")}
	console := keyset.NodeUser{Name: "console", Keyset: "oncall", Privilege: keyset.Standard, Key: keysettest.Line(5, "x")}
	_, err := a.Apply(keyset.NodeKeys{Users: []keyset.NodeUser{alice, carol, root, console}})
	require.ErrorContains(t, err, "user carol: the node has a user of that name that rackroll did not make (uid 1001)")
	require.ErrorContains(t, err, `user "root": reserved`)
	require.ErrorContains(t, err, `user "console": reserved`)
	require.Equal(t, before, snapshot(t, a.Root), "nothing written, alice not added either")

	bad := alice
	bad.Key = "ssh-ed25519 AAAA"
	_, err = a.Apply(keyset.NodeKeys{Users: []keyset.NodeUser{bad}})
	require.ErrorContains(t, err, "user alice (keyset oncall)")
	require.Equal(t, before, snapshot(t, a.Root))

	// A home left by a user removed without it is no rackroll user's.
	require.NoError(t, os.MkdirAll(a.path("home/alice"), 0o755))
	before = snapshot(t, a.Root)
	_, err = a.Apply(keyset.NodeKeys{Users: []keyset.NodeUser{alice}})
	require.ErrorContains(t, err, "user alice: /home/alice exists and rackroll did not make it")
	require.Equal(t, before, snapshot(t, a.Root))
}
