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

// Starter runs the starter binary of c against e's server, with an
// environment of its own (no temporal.toml profile, no caller's
// TEMPORAL_*), within timeout, and returns its output and exit code.
func (e *Env) Starter(c *toolbin.Commands, timeout time.Duration, args ...string) (stdout, stderr string, code int) {
	e.T.Helper()
	paths, err := c.Paths("starter")
	if err != nil {
		e.T.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, paths[0], args...)
	cmd.Env = []string{"HOME=" + e.Dir, "TEMPORAL_ADDRESS=" + e.Server.Address, "TEMPORAL_NAMESPACE=default"}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		e.T.Fatalf("starter %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code
}
