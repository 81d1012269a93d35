// Package cli_test drives rackroll's workflows the way operators do without
// our starter: with the Temporal CLI (bin/temporal) and the legacy tctl
// (bin/tctl), JSON inputs in the operator API's field names, against the
// lab. What the CLIs print and what the ledger records afterwards are the
// assertions, so a renamed field, signal or query breaks this test.
package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/toolbin"
	"github.com/rackroll/rackroll/test/e2e"
)

// clis runs the two command-line tools against one e2e site.
type clis struct {
	t        *testing.T
	env      *e2e.Env
	temporal string
	tctl     string
	environ  []string
}

func newCLIs(t *testing.T, env *e2e.Env) *clis {
	t.Helper()
	c := &clis{t: t, env: env}
	var err error
	if c.temporal, err = toolbin.Path("temporal"); err != nil {
		t.Fatal(err)
	}
	if c.tctl, err = toolbin.Path("tctl"); err != nil {
		t.Fatal(err)
	}
	// A clean environment: TEMPORAL_* variables or a profile in the
	// developer's home (API key, TLS, another address) must not redirect
	// the CLIs, and tctl writes its config file under $HOME on first run.
	home := t.TempDir()
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TEMPORAL_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			continue
		}
		c.environ = append(c.environ, kv)
	}
	c.environ = append(c.environ, "HOME="+home, "XDG_CONFIG_HOME="+home)
	return c
}

// run executes bin with args and returns stdout, stderr and whether it
// exited zero.
func (c *clis) run(bin string, args ...string) (string, string, bool) {
	c.t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = c.environ
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	c.t.Logf("$ %s %s\n%s%s", bin[strings.LastIndex(bin, "/")+1:], strings.Join(args, " "), out.String(), errOut.String())
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		c.t.Fatalf("run %s: %v", bin, err)
	}
	return out.String(), errOut.String(), err == nil
}

// Temporal runs `temporal <args> --address <lab server>` and fails the test
// when it exits non-zero.
func (c *clis) Temporal(args ...string) string {
	c.t.Helper()
	out, errOut, ok := c.TemporalMayFail(args...)
	if !ok {
		c.t.Fatalf("temporal %s failed: %s", strings.Join(args, " "), errOut)
	}
	return out
}

// TemporalMayFail is Temporal for commands expected to be refused; it
// returns stdout, stderr and success.
func (c *clis) TemporalMayFail(args ...string) (string, string, bool) {
	c.t.Helper()
	return c.run(c.temporal, append(args, "--address", c.env.Server.Address)...)
}

// Tctl runs `tctl --address <lab server> <args>` and fails the test when it
// exits non-zero.
func (c *clis) Tctl(args ...string) string {
	c.t.Helper()
	out, errOut, ok := c.run(c.tctl, append([]string{"--address", c.env.Server.Address}, args...)...)
	if !ok {
		c.t.Fatalf("tctl %s failed: %s%s", strings.Join(args, " "), out, errOut) // tctl prints its errors on stdout
	}
	return out
}

// decode parses JSON the CLI printed into v, failing the test with the
// text when it is not.
func decode(t *testing.T, text string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(text), v); err != nil {
		t.Fatalf("not the JSON expected (%v):\n%s", err, text)
	}
}

// mustJSON is the JSON of v, for --input.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
