package wftest

import (
	"path/filepath"
	"runtime"
)

// Example is the path of the site inventory examples/<name> at the root of
// the checkout, whichever package directory the test runs in.
func Example(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "examples", name)
}
