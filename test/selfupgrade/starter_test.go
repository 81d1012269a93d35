package selfupgrade_test

import (
	"context"
	"os"
	"os/exec"
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
// returns its stdout.
func starter(e *e2e.Env, args ...string) string {
	e.T.Helper()
	paths, err := commands.Paths("starter")
	if err != nil {
		e.T.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, paths[0], args...)
	cmd.Env = []string{"HOME=" + e.Dir, "TEMPORAL_ADDRESS=" + e.Server.Address, "TEMPORAL_NAMESPACE=default"}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		e.T.Fatalf("starter %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}
