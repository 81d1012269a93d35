package selfupgrade_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rackroll/rackroll/internal/toolbin"
	"github.com/rackroll/rackroll/test/e2e"
)

// The starter binary, built once per test process (make test links it once).
var commands toolbin.Commands

func TestMain(m *testing.M) {
	code := m.Run()
	commands.Remove()
	os.Exit(code)
}

// starter runs the starter binary against e's server, with an environment
// of its own (no temporal.toml profile, no caller's TEMPORAL_*), and
// returns its stdout; it fails the test when the starter fails.
func starter(e *e2e.Env, args ...string) string {
	e.T.Helper()
	stdout, stderr, code := starterAt(e.T, e.Server.Address, e.Dir, time.Minute, args...)
	if code != 0 {
		e.T.Fatalf("starter %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

// starterAt runs the starter binary against the server at address, with
// home as its HOME, within timeout, and returns its output and exit code.
func starterAt(t testing.TB, address, home string, timeout time.Duration, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return e2e.StarterAt(t, &commands, address, home, timeout, args...)
}
