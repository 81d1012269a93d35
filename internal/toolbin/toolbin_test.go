package toolbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPathSaysToRunMakeToolsWhenMissing(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("RACKROLL_BIN", dir)
	_, err := Path("kube-apiserver")
	if err == nil || !strings.Contains(err.Error(), "make tools") {
		t.Fatalf("want an error telling to run make tools, got %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kube-apiserver"), []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := Path("kube-apiserver")
	if err != nil || p != filepath.Join(dir, "kube-apiserver") {
		t.Fatalf("Path = %q, %v", p, err)
	}
}

func TestDirFindsCheckoutBin(t *testing.T) {
	t.Setenv("RACKROLL_BIN", "")
	d, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(d) != "bin" {
		t.Fatalf("Dir = %q", d)
	}
}

// The servers get one P and GOGC=300 whatever the caller's environment says
// (exec keeps the last of a repeated variable).
func TestOneProcEnvOverridesTheCallers(t *testing.T) {
	t.Setenv("GOMAXPROCS", "8")
	t.Setenv("GOGC", "off")
	cmd := exec.Command("sh", "-c", `echo "$GOMAXPROCS $GOGC"`)
	cmd.Env = OneProcEnv()
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "1 300" {
		t.Fatalf("GOMAXPROCS GOGC = %q, want \"1 300\"", got)
	}
}

// Paths answers each call with the commands it names, in its order: a
// package that first asked for the worker and the starter, then for the
// starter alone, gets the starter (make test once ran the worker so).
func TestCommandsPathsNameWhatIsAsked(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"worker", "starter"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(CmdDirEnv, dir)
	var c Commands
	defer c.Remove()
	both, err := c.Paths("worker", "starter")
	if err != nil || filepath.Base(both[0]) != "worker" || filepath.Base(both[1]) != "starter" {
		t.Fatalf("Paths(worker, starter) = %v, %v", both, err)
	}
	one, err := c.Paths("starter")
	if err != nil || len(one) != 1 || filepath.Base(one[0]) != "starter" {
		t.Fatalf("Paths(starter) = %v, %v", one, err)
	}
}
