// Package toolbin finds the binaries `make tools` builds into bin/
// (temporal, etcd, kube-apiserver, tctl) for the lab and the tests.
package toolbin

import (
	"fmt"
	"os"
	"path/filepath"
)

// Dir returns the directory holding the tool binaries: $RACKROLL_BIN when
// set, else bin/ of the enclosing rackroll checkout (found by walking up
// from the working directory to go.mod).
func Dir() (string, error) {
	if d := os.Getenv("RACKROLL_BIN"); d != "" {
		return d, nil
	}
	root, err := Checkout()
	if err != nil {
		return "", fmt.Errorf("%w: set RACKROLL_BIN to the directory holding the tool binaries", err)
	}
	return filepath.Join(root, "bin"), nil
}

// Checkout returns the root of the enclosing rackroll checkout, found by
// walking up from the working directory to go.mod.
func Checkout() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(d, "hack", "k8s", "go.mod")); err == nil {
				return d, nil
			}
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("cannot find the rackroll checkout above %s", wd)
		}
	}
}

// Path returns the path of the named tool, or an error that says how to
// build it when it is missing.
func Path(name string) (string, error) {
	d, err := Dir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(d, name)
	if fi, err := os.Stat(p); err != nil || fi.IsDir() {
		return "", fmt.Errorf("%s not found in %s: run `make tools` (builds temporal, etcd and kube-apiserver into bin/, about 10 minutes the first time)", name, d)
	}
	return p, nil
}

// OneProcEnv is the environment for the servers tests and the lab run from
// bin/ (etcd members, kube-apiserver, the Temporal dev server): this one's,
// with GOMAXPROCS=1 and GOGC=300. A test run keeps dozens of them on a
// two-core machine, mostly waiting; with a P per core each runtime spins
// threads looking for work and runs its GC on both cores, which costs more
// CPU than the parallelism gains, and a lab's servers have memory to spare
// for collecting a third as often. make test-profile:
// 15.4 min on cbae3bd before, 11.3 min on 8031f83 with this and -p 4.
func OneProcEnv() []string {
	return append(os.Environ(), "GOMAXPROCS=1", "GOGC=300")
}
