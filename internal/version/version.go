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
