package e2e

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

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

// Starter runs the starter binary (built once by c) against e's server
// with an environment of its own — HOME e.Dir, no temporal.toml profile,
// no caller's TEMPORAL_* — within timeout, and returns its output and
// exit code.
func (e *Env) Starter(c *toolbin.Commands, timeout time.Duration, args ...string) (stdout, stderr string, code int) {
	e.T.Helper()
	return StarterAt(e.T, c, e.Server.Address, e.Dir, timeout, args...)
}

// StarterAt is Starter against the server at address with home as HOME:
// for a test that restarts its server or runs the starter from elsewhere.
func StarterAt(t testing.TB, c *toolbin.Commands, address, home string, timeout time.Duration, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	paths, err := c.Paths("starter")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, paths[0], args...)
	cmd.Env = StarterEnv(address, home)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("starter %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code
}

// StarterEnv is the whole environment a test's starter runs with: the
// server at address, home as HOME; nothing of the caller's.
func StarterEnv(address, home string) []string {
	return []string{"HOME=" + home, "TEMPORAL_ADDRESS=" + address, "TEMPORAL_NAMESPACE=default"}
}
