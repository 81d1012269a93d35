package e2e

import (
	"testing"

	"github.com/rackroll/rackroll/internal/toolbin"
)

// Binaries are the worker and starter commands, built once per test
// process into c (the package's, removed by its TestMain), for tests that
// must run them as processes of their own; t fails when they do not build.
func Binaries(t testing.TB, c *toolbin.Commands) (worker, starter string) {
	t.Helper()
	paths, err := c.Paths("worker", "starter")
	if err != nil {
		t.Fatal(err)
	}
	return paths[0], paths[1]
}
