package nodeapply

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rackroll/rackroll/internal/keyset"
)

// Report is what the node holds, read from its files alone: each
// rackroll user of passwd with its keyset (its GECOS), its privilege (a
// sudoers file of its own: superuser) and the fingerprint of the key in
// its authorized_keys ("" when it has none that parses, which no wanted
// set matches). The answer is the node's, not the plan's.
func (a *Applier) Report() (keyset.NodeReport, error) {
	b, err := os.ReadFile(a.path(PasswdFile))
	if err != nil {
		return keyset.NodeReport{}, err
	}
	users := []keyset.Fingerprinted{}
	for _, u := range Managed(b) {
		f := keyset.Fingerprinted{Name: u.Name, Keyset: u.Keyset, Privilege: keyset.Standard}
		if fi, err := os.Lstat(a.path(SudoersDir + "/" + SudoersPrefix + u.Name)); err == nil && fi.Mode().IsRegular() {
			f.Privilege = keyset.Superuser
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return keyset.NodeReport{}, err
		}
		line, err := os.ReadFile(filepath.Join(a.path(u.Home()), ".ssh", "authorized_keys"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return keyset.NodeReport{}, err
		}
		if pk, err := keyset.ParsePublicKey(strings.TrimSpace(string(line))); err == nil {
			f.Fingerprint = pk.Fingerprint
		}
		users = append(users, f)
	}
	return keyset.Report(users), nil
}
