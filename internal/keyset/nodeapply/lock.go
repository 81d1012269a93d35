package nodeapply

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockWait is how long Apply waits for the account files' lock, as
// lckpwdf(3) does (15 s) before it gives up.
const lockWait = 15 * time.Second

// lockAccounts takes the lock useradd, passwd and vipw take before they
// write the account files (lckpwdf(3): a write lock on /etc/.pwd.lock),
// so that a run never interleaves with one of them on the node.
func lockAccounts(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the account files' lock: %w", err)
	}
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0}
	deadline := time.Now().Add(lockWait)
	for {
		err = syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("the account files are locked (%s) by another program for %s: %w", path, lockWait, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
