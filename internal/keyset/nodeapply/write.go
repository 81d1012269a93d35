package nodeapply

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// owner is a file's uid and gid.
type owner struct{ uid, gid int }

func ownerOf(fi fs.FileInfo) owner {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return owner{int(st.Uid), int(st.Gid)}
	}
	return owner{-1, -1}
}

// writeFile puts b at path as a temp file renamed over it, so that a
// reader (sshd, sudo, login) sees the old file or the new one, never
// half of one, and a symlink at path is replaced, never followed. The
// same bytes already there are not written again (the mtime stays); a
// wrong mode or owner is mended. It says whether it wrote.
func (a *Applier) writeFile(path string, b []byte, mode fs.FileMode, o owner) (bool, error) {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode().IsRegular() {
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
			return false, a.mend(path, fi, mode, o)
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".rackroll-")
	if err != nil {
		return false, err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	if _, err := f.Write(b); err != nil {
		f.Close()
		return false, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return false, err
	}
	if err := f.Close(); err != nil {
		return false, err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return false, err
	}
	if err := a.chown(tmp, o); err != nil {
		return false, err
	}
	a.logf("wrote /%s", a.rel(path))
	return true, os.Rename(tmp, path)
}

// mend sets path's mode and owner when they are not mode and o.
func (a *Applier) mend(path string, fi fs.FileInfo, mode fs.FileMode, o owner) error {
	if fi.Mode().Perm() != mode.Perm() {
		if err := os.Chmod(path, mode); err != nil {
			return err
		}
	}
	if ownerOf(fi) != o {
		return a.chown(path, o)
	}
	return nil
}

// ensureDir makes path a directory of mode and owner: a symlink or file
// in its place (a user may plant one in a home it owns, to have root
// write elsewhere) is removed first.
func (a *Applier) ensureDir(path string, mode fs.FileMode, o owner) error {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.IsDir():
		return a.mend(path, fi, mode, o)
	case err == nil:
		if err := os.Remove(path); err != nil {
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := os.Mkdir(path, mode); err != nil {
		return err
	}
	a.logf("made /%s", a.rel(path))
	if err := os.Chmod(path, mode); err != nil { // past the umask
		return err
	}
	return a.chown(path, o)
}

// removePath removes path (a directory with what it holds), saying so
// when there was something.
func (a *Applier) removePath(path string) error {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	a.logf("removed /%s", a.rel(path))
	return os.RemoveAll(path)
}

func (a *Applier) chown(path string, o owner) error {
	if a.Chown != nil {
		return a.Chown(path, o.uid, o.gid)
	}
	return os.Lchown(path, o.uid, o.gid)
}

func (a *Applier) rel(path string) string {
	r, err := filepath.Rel(a.Root, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}

func (a *Applier) logf(format string, args ...any) {
	if a.Log != nil {
		a.Log(format, args...)
	}
}
