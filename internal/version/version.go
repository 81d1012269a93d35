// Package version reports the build's version (set with -ldflags
// "-X github.com/rackroll/rackroll/internal/version.Version=v1.2.3").
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is overridden at link time for releases.
var Version = "dev"

// String is the one-line version the binaries print.
func String() string {
	rev := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = " (" + s.Value[:12] + ")"
			}
		}
	}
	return fmt.Sprintf("rackroll %s%s %s %s/%s", Version, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// VCS is the revision the binary was built from and whether its work tree
// had changes, as the Go toolchain stamps them ("" and false without VCS
// information: go run, a tree outside git, -buildvcs=false). A development
// worker's build ID is made of them (internal/selfupgrade).
func VCS() (revision string, modified bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", false
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return revision, modified
}
